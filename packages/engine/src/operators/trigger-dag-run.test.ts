import { loadConfig } from "@svc/config";
import { NonRetryableError } from "@svc/errors";
import { checkLiteralArgs } from "./registry";
import { derivedTriggerRunId, triggerDagRunOperator } from "./trigger-dag-run";

const RUN_ID_PATTERN = /^[A-Za-z0-9_.~:+-]{1,250}$/; // the engine API's (Airflow's default)
const key = { dagId: "parent", runId: "manual__2026-01-01T00:00:00+00:00", taskId: "run_child", tryNumber: 1 };

test("the derived child run id is the same for every delivery of a try, new for each try and each task, and a valid run id even for the longest ids", () => {
  expect(derivedTriggerRunId(key)).toBe(derivedTriggerRunId({ ...key }));
  expect(derivedTriggerRunId(key)).toMatch(/^triggered__parent\.run_child__try1__[0-9a-f]{12}$/);
  expect(derivedTriggerRunId({ ...key, tryNumber: 2 })).not.toBe(derivedTriggerRunId(key));
  expect(derivedTriggerRunId({ ...key, runId: "other" })).not.toBe(derivedTriggerRunId(key));
  // Ids that join alike with the separators still differ (the hash covers the exact key).
  expect(derivedTriggerRunId({ ...key, dagId: "a.b", taskId: "c" })).not.toBe(derivedTriggerRunId({ ...key, dagId: "a", taskId: "b.c" }));
  const long = derivedTriggerRunId({ dagId: "d".repeat(100), runId: "r".repeat(250), taskId: "t".repeat(100), tryNumber: 12345 });
  expect(long).toMatch(RUN_ID_PATTERN);
});

test("args: defaults as documented; poke_interval below 1 s, a state in both lists and unknown states are rejected at import", () => {
  expect(triggerDagRunOperator.args.parse({ trigger_dag_id: "c" })).toEqual({
    trigger_dag_id: "c",
    conf: {},
    wait_for_completion: true,
    poke_interval: 10,
    allowed_states: ["success"],
    failed_states: ["failed"],
    timeout: 604800,
  });
  expect(checkLiteralArgs(triggerDagRunOperator.args, { trigger_dag_id: "c", poke_interval: 0.5 })).toEqual([expect.stringMatching(/^argument 'poke_interval'/)]);
  expect(checkLiteralArgs(triggerDagRunOperator.args, { conf: {} })).toEqual(["missing required argument 'trigger_dag_id'"]);
  expect(checkLiteralArgs(triggerDagRunOperator.args, { trigger_dag_id: "c", failed_states: ["done"] })).toHaveLength(1);
  expect(triggerDagRunOperator.args.safeParse({ trigger_dag_id: "c", allowed_states: ["success", "failed"] }).success).toBe(false);
});

test("outside an engine worker (no DAG runs port) the task fails without retrying", async () => {
  const ctx = { ...key, params: {}, config: loadConfig({}), log: () => undefined, signal: new AbortController().signal };
  await expect(triggerDagRunOperator.run(triggerDagRunOperator.args.parse({ trigger_dag_id: "c" }), ctx)).rejects.toBeInstanceOf(NonRetryableError);
});
