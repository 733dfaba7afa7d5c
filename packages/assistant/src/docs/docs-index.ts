import { readdir, readFile } from "node:fs/promises";
import * as path from "node:path";
import MiniSearch from "minisearch";
import { analyse, STOP_WORDS } from "../router/analyse";
import { splitMarkdown, type Passage } from "./split-passages";

/** A document that does not live in docs/ (a DAG description or doc_md). */
export interface ExtraDoc {
  title: string;
  path: string;
  /** Markdown or plain text. */
  text: string;
}

/** Options for createDocsIndex. */
export interface DocsIndexOptions {
  /** Folder walked for **\/*.md; a missing folder yields an index of the extra docs only. */
  docsDir: string;
  extraDocs?: readonly ExtraDoc[];
}

/** One search result. */
export interface DocHit {
  title: string;
  path: string;
  score: number;
  text: string;
}

/** BM25 search over documentation passages. */
export interface DocsIndex {
  readonly size: number;
  search(query: string, k?: number): DocHit[];
}

async function markdownFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const nested = await Promise.all(
    entries.map(async (e) => {
      if (e.name.startsWith(".") || e.name === "node_modules") return [];
      const full = path.join(dir, e.name);
      if (e.isDirectory()) return markdownFiles(full);
      return e.isFile() && e.name.toLowerCase().endsWith(".md") ? [full] : [];
    }),
  );
  return nested.flat().sort();
}

/** Walks docsDir for markdown, splits it by heading and indexes the passages with the extra docs. */
export async function createDocsIndex(options: DocsIndexOptions): Promise<DocsIndex> {
  const root = path.resolve(options.docsDir);
  const prefix = path.basename(root);
  const passages: Passage[] = [];
  for (const file of await markdownFiles(root)) {
    const rel = `${prefix}/${path.relative(root, file).split(path.sep).join("/")}`;
    passages.push(...splitMarkdown(await readFile(file, "utf8"), rel, path.basename(file, ".md")));
  }
  for (const d of options.extraDocs ?? []) passages.push(...splitMarkdown(d.text, d.path, d.title));
  const index = new MiniSearch<Passage & { id: number }>({
    fields: ["title", "text"],
    storeFields: ["title", "path", "text"],
    tokenize: (text) => analyse(text),
    processTerm: (term) => (STOP_WORDS.has(term) ? null : term),
  });
  index.addAll(passages.map((p, id) => ({ ...p, id })));
  return {
    size: passages.length,
    search(query, k = 5) {
      return index
        .search(query, {
          boost: { title: 2 },
          combineWith: "OR",
          // Typo tolerance for longer words only: short ones would match too much.
          fuzzy: (term) => (term.length >= 6 ? 0.2 : false),
        })
        .slice(0, k)
        .map((h) => ({ title: String(h.title), path: String(h.path), score: Math.round(h.score * 1000) / 1000, text: String(h.text) }));
    },
  };
}
