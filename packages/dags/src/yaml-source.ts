import { LineCounter, isMap, parseDocument, type Document } from "yaml";
import type { DagFileProblem } from "./types";

/** Largest DAG file read; a bigger file is an import error, not a memory problem. */
export const MAX_FILE_BYTES = 1_000_000;

/** A parsed YAML file with line lookups for error messages. */
export interface YamlSource {
  data: unknown;
  problems: DagFileProblem[];
  /** 1-based line of the value at `path` (or of its closest existing ancestor). */
  lineOf(path: readonly (string | number)[]): number | undefined;
  /** 1-based line of the key `key` inside the mapping at `path`. */
  keyLineOf(path: readonly (string | number)[], key: string): number | undefined;
}

/** Parse YAML text; syntax errors and warnings come back as problems with their line. */
export function loadYaml(text: string): YamlSource {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  const lineAt = (offset: number | undefined) => (offset === undefined ? undefined : lc.linePos(offset).line);
  const problems: DagFileProblem[] = [...doc.errors, ...doc.warnings].map((e) => ({ message: `YAML syntax: ${e.message}`, line: lineAt(e.pos[0]) }));
  let data: unknown = undefined;
  if (doc.errors.length === 0) {
    try {
      data = doc.toJS({ maxAliasCount: 100 });
    } catch (e) {
      problems.push({ message: `YAML syntax: ${(e as Error).message}` });
    }
  }
  return {
    data,
    problems,
    lineOf: (path) => lineAt(nodeAt(doc, path)?.range?.[0]),
    keyLineOf(path, key) {
      const parent = nodeAt(doc, path);
      if (!isMap(parent)) return lineAt(parent?.range?.[0]);
      const pair = parent.items.find((p) => (p.key as { value?: unknown } | null)?.value === key);
      return lineAt((pair?.key as { range?: [number, number, number] } | null)?.range?.[0]);
    },
  };
}

type RangedNode = { range?: [number, number, number] | null };

/** The node at `path`, or its deepest existing ancestor. */
function nodeAt(doc: Document, path: readonly (string | number)[]): (RangedNode & object) | undefined {
  for (let n = path.length; n >= 0; n--) {
    const node = n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true);
    if (node && typeof node === "object" && "range" in node) return node as RangedNode;
  }
  return undefined;
}
