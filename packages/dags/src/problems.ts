import type { DagFileProblem } from "./types";

/** `tasks[0].args.name` from path segments. */
export function formatFieldPath(path: readonly (string | number)[]): string {
  let out = "";
  for (const p of path) out += typeof p === "number" ? `[${p}]` : out === "" ? p : `.${p}`;
  return out;
}

/** The import-error text of a file: one line per problem, prefixed with its YAML line when known. */
export function formatProblems(problems: readonly DagFileProblem[]): string {
  return problems.map((p) => (p.line ? `line ${p.line}: ${p.message}` : p.message)).join("\n");
}

/** Problems ordered by line (problems without a line last), keeping the order of equal lines. */
export function sortProblems(problems: DagFileProblem[]): DagFileProblem[] {
  return problems
    .map((p, i) => ({ p, i }))
    .sort((a, b) => (a.p.line ?? Infinity) - (b.p.line ?? Infinity) || a.i - b.i)
    .map(({ p }) => p);
}
