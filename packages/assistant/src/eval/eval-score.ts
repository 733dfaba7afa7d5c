import type { RouteResult } from "../types";

/** One line of an intents JSONL file; dag_id/params present when the line is labelled. */
export interface EvalCase {
  intent: string;
  dag_id?: string | null;
  params?: Record<string, unknown>;
}

/** How one labelled line fared. */
export interface EvalOutcome {
  intent: string;
  expected: string | null;
  got: string | null;
  dagOk: boolean;
  /** null when the line expects a refusal (no params to check). */
  paramsOk: boolean | null;
  params: Record<string, unknown>;
  expectedParams: Record<string, unknown>;
}

/** Aggregate scores of a labelled set. */
export interface EvalSummary {
  lines: number;
  labelled: number;
  top1_correct: number;
  top1_accuracy: number;
  params_checked: number;
  params_exact: number;
  params_exact_rate: number;
  refusals_expected: number;
  refused: number;
  refusal_rate: number;
  false_refusals: number;
}

/** Parses JSONL, skipping blank lines; throws with the line number on bad JSON. */
export function parseJsonl(text: string): EvalCase[] {
  return text.split(/\r?\n/).flatMap((line, i) => {
    if (!line.trim()) return [];
    try {
      const v = JSON.parse(line) as EvalCase;
      if (typeof v.intent !== "string") throw new Error("missing intent");
      return [v];
    } catch (err) {
      throw new Error(`line ${i + 1}: ${(err as Error).message}`);
    }
  });
}

/** Only the keys the expectation lists are compared; extra keys are allowed. */
function paramsMatch(expected: Record<string, unknown>, got: Record<string, unknown>): boolean {
  return Object.entries(expected).every(([k, v]) => JSON.stringify(got[k]) === JSON.stringify(v));
}

/** Scores one routed line against its labels; undefined when the line has no labels. */
export function scoreLine(c: EvalCase, r: RouteResult): EvalOutcome | undefined {
  if (c.dag_id === undefined) return undefined;
  const expected = c.dag_id;
  const expectedParams = c.params ?? {};
  const dagOk = r.dag_id === expected;
  return {
    intent: c.intent, expected, got: r.dag_id, dagOk, params: r.params, expectedParams,
    paramsOk: expected === null ? null : dagOk && paramsMatch(expectedParams, r.params),
  };
}

const rate = (n: number, d: number) => (d === 0 ? 1 : Math.round((n / d) * 10000) / 10000);

/** Top-1 accuracy over labelled lines, params exact-match over in-scope lines, refusal rate over null lines. */
export function summarize(lines: number, outcomes: readonly EvalOutcome[]): EvalSummary {
  const top1 = outcomes.filter((o) => o.dagOk).length;
  const checked = outcomes.filter((o) => o.paramsOk !== null);
  const exact = checked.filter((o) => o.paramsOk).length;
  const nulls = outcomes.filter((o) => o.expected === null);
  const refused = nulls.filter((o) => o.got === null).length;
  return {
    lines, labelled: outcomes.length, top1_correct: top1, top1_accuracy: rate(top1, outcomes.length),
    params_checked: checked.length, params_exact: exact, params_exact_rate: rate(exact, checked.length),
    refusals_expected: nulls.length, refused, refusal_rate: rate(refused, nulls.length),
    false_refusals: outcomes.filter((o) => o.expected !== null && o.got === null).length,
  };
}
