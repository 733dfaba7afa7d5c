import type { RouteResult } from "../types";

/** One line of an intents JSONL file; dag_id/params present when the line is labelled. */
export interface EvalCase {
  intent: string;
  dag_id?: string | null;
  params?: Record<string, unknown>;
  /** Expected route status; absent: rejected when dag_id is null, else not checked. */
  status?: "ready" | "needs_input" | "rejected";
  /** Free label for per-category scores (--report). */
  category?: string;
  /** The kind of sentence (scored like category; used when category is absent). */
  kind?: string;
  /** The line asks about the hosts: the route must say so (refused.about_hosts), and, for "fit", the VM size asked about. */
  answers?: "hosts" | "fit";
  /** For answers "fit": the size the question states (memory_mb, cpus, disk_gb). */
  fit?: Record<string, number>;
  /** Where the request puts its VMs (provider, region, host words): compared as params are, key by key. */
  target?: Record<string, unknown>;
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
  category: string;
  expectedStatus: string | null;
  gotStatus: string;
  /** null when the line states no status. */
  statusOk: boolean | null;
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
  status_checked: number;
  status_exact: number;
  status_exact_rate: number;
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

/** For a question about the hosts: is it marked as one, with the size it asks about (null when the line expects no answer). */
function answersMatch(c: EvalCase, r: RouteResult): boolean | null {
  if (!c.answers) return null;
  if (!r.refused?.about_hosts) return false;
  const fit = r.refused.about_fit;
  if (c.answers === "hosts") return fit === undefined;
  return fit !== undefined && JSON.stringify(Object.entries(fit).sort()) === JSON.stringify(Object.entries(c.fit ?? {}).sort());
}

/** Scores one routed line against its labels; undefined when the line has no labels. */
export function scoreLine(c: EvalCase, r: RouteResult): EvalOutcome | undefined {
  if (c.dag_id === undefined) return undefined;
  const expected = c.dag_id;
  const expectedParams = c.params ?? {};
  const dagOk = r.dag_id === expected;
  const gotStatus = r.status ?? (r.dag_id ? "ready" : "rejected");
  const expectedStatus = c.status ?? (expected === null ? "rejected" : null);
  const answerOk = answersMatch(c, r);
  return {
    intent: c.intent,
    expected,
    got: r.dag_id,
    dagOk,
    params: r.params,
    expectedParams,
    paramsOk: expected === null ? null : dagOk && paramsMatch(expectedParams, r.params) && (c.target === undefined || paramsMatch(c.target, { ...r.target })),
    category: c.category ?? c.kind ?? "uncategorised",
    expectedStatus,
    gotStatus,
    statusOk: expectedStatus === null ? (answerOk === false ? false : null) : expectedStatus === gotStatus && answerOk !== false,
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
    lines,
    labelled: outcomes.length,
    top1_correct: top1,
    top1_accuracy: rate(top1, outcomes.length),
    params_checked: checked.length,
    params_exact: exact,
    params_exact_rate: rate(exact, checked.length),
    refusals_expected: nulls.length,
    refused,
    refusal_rate: rate(refused, nulls.length),
    false_refusals: outcomes.filter((o) => o.expected !== null && o.got === null).length,
    ...statusScore(outcomes),
  };
}

function statusScore(outcomes: readonly EvalOutcome[]) {
  const checked = outcomes.filter((o) => o.statusOk !== null);
  const exact = checked.filter((o) => o.statusOk).length;
  return { status_checked: checked.length, status_exact: exact, status_exact_rate: rate(exact, checked.length) };
}

/** Scores of one category of a labelled set. */
export interface CategoryScore {
  category: string;
  lines: number;
  top1_accuracy: number;
  params_exact_rate: number;
  status_exact_rate: number;
  /** Lines right on all three counts. */
  all_right: number;
}

/** Per-category scores, sorted by category name. */
export function reportByCategory(outcomes: readonly EvalOutcome[]): CategoryScore[] {
  const groups = new Map<string, EvalOutcome[]>();
  for (const o of outcomes) groups.set(o.category, [...(groups.get(o.category) ?? []), o]);
  return [...groups.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([category, list]) => {
      const checked = list.filter((o) => o.paramsOk !== null);
      return {
        category,
        lines: list.length,
        top1_accuracy: rate(list.filter((o) => o.dagOk).length, list.length),
        params_exact_rate: rate(checked.filter((o) => o.paramsOk).length, checked.length),
        status_exact_rate: statusScore(list).status_exact_rate,
        all_right: list.filter((o) => o.dagOk && o.paramsOk !== false && o.statusOk !== false).length,
      };
    });
}
