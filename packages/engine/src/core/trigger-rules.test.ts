import type { TriggerRule } from "@svc/dags";
import type { TaskState } from "@svc/db";
import { countUpstream, evaluateTriggerRule, successWaitsForOthers, type RuleVerdict } from "./trigger-rules";

const S = "success",
  K = "skipped",
  F = "failed",
  U = "upstream_failed",
  R = "running",
  N = null;
type St = TaskState | null;

// [rule, upstream states, expected verdict]
const table: [TriggerRule, St[], RuleVerdict][] = [
  ["all_success", [], "run"],
  ["all_success", [S, S], "run"],
  ["all_success", [S, R], "wait"],
  ["all_success", [S, N], "wait"],
  ["all_success", [S, F], "upstream_failed"],
  ["all_success", [R, U], "upstream_failed"],
  ["all_success", [S, K], "skip"],
  ["all_success", [R, K], "skip"],
  ["all_failed", [F, U], "run"],
  ["all_failed", [F, R], "wait"],
  ["all_failed", [F, S], "skip"],
  ["all_failed", [F, K], "skip"],
  ["all_done", [S, F, K, U], "run"],
  ["all_done", [S, R], "wait"],
  ["one_success", [S, R], "run"],
  ["one_success", [F, R], "wait"],
  ["one_success", [F, K], "upstream_failed"],
  ["one_success", [K, K], "skip"],
  ["one_failed", [F, R], "run"],
  ["one_failed", [U, N], "run"],
  ["one_failed", [S, R], "wait"],
  ["one_failed", [S, K], "skip"],
  ["none_failed", [S, K], "run"],
  ["none_failed", [K, K], "run"],
  ["none_failed", [S, R], "wait"],
  ["none_failed", [S, F], "upstream_failed"],
  ["none_failed", [R, U], "upstream_failed"],
  ["none_failed_min_one_success", [S, K], "run"],
  ["none_failed_min_one_success", [K, K], "skip"],
  ["none_failed_min_one_success", [K, R], "wait"],
  ["none_failed_min_one_success", [K, F], "upstream_failed"],
  ["none_skipped", [S, F, U], "run"],
  ["none_skipped", [S, K], "skip"],
  ["none_skipped", [S, R], "wait"],
  ["always", [R, N, F], "run"],
  ["always", [], "run"],
];

describe("evaluateTriggerRule follows Airflow 2 semantics", () => {
  test.each(table)("%s with upstream %j → %s", (rule, states, expected) => {
    expect(evaluateTriggerRule(rule, countUpstream(states))).toBe(expected);
  });

  test("every rule with no upstream tasks runs", () => {
    const rules: TriggerRule[] = ["all_success", "all_failed", "all_done", "one_success", "one_failed", "none_failed", "none_failed_min_one_success", "none_skipped", "always"];
    for (const r of rules) expect(evaluateTriggerRule(r, countUpstream([]))).toBe("run");
  });

  test("countUpstream counts only finished states as done", () => {
    expect(countUpstream([S, K, F, U, R, N, "queued", "up_for_retry"])).toEqual({ total: 8, success: 1, skipped: 1, failed: 1, upstreamFailed: 1, done: 4 });
  });
});

test("a success waits for the other upstreams under every rule except those it can decide alone (all_failed skips, one_success runs)", () => {
  const rules = ["all_success", "all_failed", "all_done", "one_success", "one_failed", "none_failed", "none_failed_min_one_success", "none_skipped", "always"] as const;
  expect(rules.filter((r) => !successWaitsForOthers(r))).toEqual(["all_failed", "one_success"]);
});
