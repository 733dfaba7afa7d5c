import MiniSearch from "minisearch";
import type { RouterCatalogEntry } from "../types";
import { DOMAIN_KNOWLEDGE, SYNONYMS } from "./domain-knowledge";
import { analyse, STOP_WORDS as STOP } from "./analyse";
import { stem } from "./normalize";

interface DagDoc {
  id: string;
  description: string;
  tags: string;
  examples: string;
  keywords: string;
}

/** BM25 evidence for one DAG. */
export interface Bm25Hit {
  score: number;
  /** Share of the request's content words (synonyms included) found in this DAG's text, 0..1. */
  coverage: number;
}

/** BM25 over each DAG's description, tags, examples and built-in keywords. */
export interface DagBm25Index {
  score(terms: readonly string[]): Map<string, Bm25Hit>;
}

/** Numbers and sizes are values, not evidence of what the user wants ("2 vcpus" must not match "what's 2+2"). */
const VALUE = /^[\d.]+[a-z]{0,3}$/;

/** Builds the index for one catalogue. */
export function createDagBm25Index(catalog: readonly RouterCatalogEntry[]): DagBm25Index {
  const known = new Map(DOMAIN_KNOWLEDGE.map((k) => [k.dag_id, k]));
  const docs: DagDoc[] = catalog.map((e) => ({
    id: e.dag_id,
    description: e.description ?? "",
    tags: e.tags.join(" "),
    examples: e.examples.join(" . "),
    keywords: (known.get(e.dag_id)?.groups ?? []).flatMap((g) => g.terms).join(" . "),
  }));
  const index = new MiniSearch<DagDoc>({
    fields: ["description", "tags", "examples", "keywords"],
    tokenize: (text) => analyse(text),
    processTerm: (term) => (STOP.has(term) || VALUE.test(term) ? null : term),
  });
  index.addAll(docs);
  return {
    score(terms) {
      // Each query word maps back to the request word it came from, for coverage.
      const source = new Map<string, Set<string>>();
      const content = [...new Set(terms.filter((t) => !STOP.has(t) && !VALUE.test(t)))];
      const link = (q: string, from: string) => source.set(q, (source.get(q) ?? new Set()).add(from));
      for (const t of content) {
        link(t, t);
        for (const syn of SYNONYMS[t] ?? []) link(stem(syn), t);
      }
      const out = new Map<string, Bm25Hit>();
      if (content.length === 0) return out;
      const hits = index.search([...source.keys()].join(" "), {
        combineWith: "OR",
        boost: { tags: 2, keywords: 1.5, description: 1, examples: 1 },
        tokenize: (q) => q.split(" "),
        processTerm: (t) => t,
      });
      for (const h of hits) {
        const covered = new Set(h.queryTerms.flatMap((q) => [...(source.get(q) ?? [])]));
        out.set(String(h.id), { score: h.score, coverage: covered.size / content.length });
      }
      return out;
    },
  };
}
