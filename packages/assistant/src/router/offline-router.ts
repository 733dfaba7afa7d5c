import type { RouteCandidate, RouteResult, RouterCatalogEntry } from "../types";
import { describeCatalogue } from "../catalog/catalog-entry";
import { extractAllValues, paramsForDag } from "../params/extract-params";
import { validateParams } from "../params/validate-params";
import { ALIASES, createAliasMatcher, type AliasDefinition, type AliasMatch } from "./aliases";
import { analyse } from "./analyse";
import { createDagBm25Index, type Bm25Hit } from "./bm25-index";
import { DOMAIN_KNOWLEDGE, knowledgeFromTags } from "./domain-knowledge";
import { createKeywordScorer, detectVerbs, type IntentVerbs } from "./keyword-scorer";
import { createIntentParser, type ParsedIntent } from "./parse-intent";
import { checkSafety } from "./safety-gate";

/** Thresholds of the offline router. */
export interface RouterThresholds {
  /** Minimum score of the best DAG. */
  minScore: number;
  /** Minimum (best - runner-up) / best. */
  minMargin: number;
}

/** Options for createOfflineRouter. */
export interface OfflineRouterOptions {
  aliases?: readonly AliasDefinition[];
  thresholds?: Partial<RouterThresholds>;
}

export const DEFAULT_THRESHOLDS: RouterThresholds = { minScore: 2, minMargin: 0.3 };
/** An exact alias is worth more than any keyword evidence. */
const ALIAS_BOOST = 6;
/**
 * BM25 adds catalogue evidence (descriptions, examples) on top of the built-in keywords: the DAG's
 * share of the total (raw minisearch scores vary by orders of magnitude between queries) times the
 * share of the request's words it covers (so one stray shared word in a one-DAG catalogue is not a match).
 */
const BM25_WEIGHT = 2.5;

function bm25Points(hit: Bm25Hit | undefined, total: number): number {
  return hit && total > 0 ? (BM25_WEIGHT * hit.score * hit.coverage) / total : 0;
}

const CHECK_DAGS = new Set(DOMAIN_KNOWLEDGE.filter((k) => k.checks).map((k) => k.dag_id));
const isCheckDag = (dagId: string) => CHECK_DAGS.has(dagId);

/** The model-free router: safety gate, aliases, keywords and BM25, thresholds, params. */
export interface OfflineRouter {
  readonly catalog: readonly RouterCatalogEntry[];
  route(intent: string): RouteResult;
  /** Params the request states for one DAG, validated by its schema. */
  paramsFor(intent: string, dagId: string): { params: Record<string, unknown>; warnings: string[] };
}

interface Ranked {
  dag_id: string;
  score: number;
  evidence: string[];
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

/** Builds the offline router for one catalogue. */
export function createOfflineRouter(catalog: readonly RouterCatalogEntry[], options: OfflineRouterOptions = {}): OfflineRouter {
  const parse = createIntentParser(catalog);
  const bm25 = createDagBm25Index(catalog);
  const matchAliases = createAliasMatcher(options.aliases ?? ALIASES);
  const thresholds = { ...DEFAULT_THRESHOLDS, ...options.thresholds };
  const byId = new Map(catalog.map((e) => [e.dag_id, e]));
  const builtIn = new Set(DOMAIN_KNOWLEDGE.map((k) => k.dag_id));
  const scoreKeywords = createKeywordScorer(catalog.filter((e) => !builtIn.has(e.dag_id) && e.tags.length > 0).map((e) => knowledgeFromTags(e.dag_id, e.tags)));
  // A DAG's own words: an operation it names itself ("backup") is supported by it.
  const ownWords = new Map(catalog.map((e) => [e.dag_id, new Set(analyse([e.description ?? "", ...e.tags, ...e.examples].join(" ")))]));
  const offersOperation = (dagId: string, verb: string) => analyse(verb).every((w) => ownWords.get(dagId)?.has(w));

  function rank(parsed: ParsedIntent, aliases: AliasMatch[], verbs: IntentVerbs): Ranked[] {
    const keywords = scoreKeywords(parsed.terms, verbs);
    const lexical = bm25.score(parsed.terms);
    const total = [...lexical.values()].reduce((a, b) => a + b.score, 0);
    return catalog
      .map((e) => {
        const kw = keywords.get(e.dag_id);
        const alias = aliases.find((a) => a.dag_id === e.dag_id);
        const score = (kw?.score ?? 0) + bm25Points(lexical.get(e.dag_id), total) + (alias ? ALIAS_BOOST : 0);
        const evidence = [...(alias ? [`alias "${alias.format}"`] : []), ...(kw?.matched ?? []).map((m) => `"${m}"`)];
        return { dag_id: e.dag_id, score: round(score), evidence };
      })
      .sort((a, b) => b.score - a.score);
  }

  function paramsFromParsed(parsed: ParsedIntent, entry: RouterCatalogEntry, aliases: AliasMatch[]) {
    const values = extractAllValues(parsed);
    const aliasParams = aliases.find((a) => a.dag_id === entry.dag_id)?.params ?? {};
    // The general extractor has already vetted names; an alias only adds what it implies (action).
    const merged = { ...values, ...Object.fromEntries(Object.entries(aliasParams).filter(([k]) => values[k] === undefined && k === "action")) };
    const result = validateParams(entry.params, paramsForDag(merged, Object.keys(entry.params)));
    // Deleting needs to know what: a DAG whose vm_name has no usable default cannot guess it.
    const nameSchema = entry.params.vm_name;
    if (result.params.action === "delete" && nameSchema && result.params.vm_name === undefined && !nameSchema.default) {
      result.warnings.push("action=delete needs vm_name: say which VM to delete");
    }
    return result;
  }

  const refuse = (kind: "unsafe" | "out_of_scope" | "low_confidence", message: string, candidates: RouteCandidate[], confidence = 0): RouteResult => ({
    dag_id: null, confidence, params: {}, candidates, reason: message, refused: { kind, message }, mode: "offline", warnings: [],
  });

  return {
    catalog,
    route(intent) {
      const gate = checkSafety(intent);
      if (gate) return refuse(gate.kind, gate.message, []);
      const parsed = parse(intent);
      const aliases = matchAliases(parsed.text);
      const verbs = detectVerbs(parsed.terms);
      const ranked = rank(parsed, aliases, verbs);
      const candidates = ranked.filter((r) => r.score > 0).slice(0, 3).map(({ dag_id, score }) => ({ dag_id, score }));
      const [best, second] = ranked;
      if (!best || best.score <= 0) {
        return refuse("out_of_scope", `Nothing in the request matches a workflow. ${describeCatalogue(catalog)}`, candidates);
      }
      const margin = (best.score - (second?.score ?? 0)) / best.score;
      const confidence = round(Math.max(0, margin) * Math.min(1, best.score / (thresholds.minScore * 3)));
      if (best.score < thresholds.minScore) {
        return refuse("low_confidence", `Not enough evidence for any workflow (best ${best.dag_id} at ${best.score}). ${describeCatalogue(catalog)}`, candidates, confidence);
      }
      if (margin < thresholds.minMargin) {
        return refuse("low_confidence", `The request fits ${best.dag_id} and ${second?.dag_id} about equally; please say which one you mean.`, candidates, confidence);
      }
      // "upgrade openshift" or "list vms" share a noun with a deploy workflow but ask for something else.
      const unsupported = verbs.unsupported && !offersOperation(best.dag_id, verbs.unsupported);
      if (unsupported && !verbs.create && !verbs.delete && !(verbs.check && isCheckDag(best.dag_id))) {
        return refuse("out_of_scope", `No workflow in the catalogue can ${verbs.unsupported} that. ${describeCatalogue(catalog)}`, candidates);
      }
      const entry = byId.get(best.dag_id)!;
      const { params, warnings } = paramsFromParsed(parsed, entry, aliases);
      return {
        dag_id: best.dag_id, confidence, params, candidates,
        reason: `matched ${best.evidence.slice(0, 5).join(", ") || "catalogue text"} (score ${best.score}, margin ${round(margin)})`,
        mode: "offline", warnings,
      };
    },
    paramsFor(intent, dagId) {
      const entry = byId.get(dagId);
      if (!entry) return { params: {}, warnings: [`unknown workflow ${dagId}`] };
      const parsed = parse(intent);
      return paramsFromParsed(parsed, entry, matchAliases(parsed.text));
    },
  };
}
