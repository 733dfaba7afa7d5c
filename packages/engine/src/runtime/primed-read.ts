import type { RunRead } from "./run-read";

/**
 * Runs as the statement that started them returned them (svc_start_runs, migration 016), kept
 * only while their first evaluation is asked for: that evaluation decides from them instead of
 * reading the run again. Per process; a primed read that is stale by then (an API write since)
 * fails the decision's version guard, and the evaluation reads the run as usual.
 */
const primed = new Map<string, RunRead>();
const keyOf = (dagId: string, runId: string) => `${dagId}\u0000${runId}`;

/** Run `evaluate` with `run` primed for the evaluation it asks for; the read is dropped after. */
export async function withPrimedRead<T>(run: RunRead, evaluate: () => Promise<T>): Promise<T> {
  const key = keyOf(run.dag_id, run.run_id);
  primed.set(key, run);
  try {
    return await evaluate();
  } finally {
    if (primed.get(key) === run) primed.delete(key);
  }
}

/** The primed read of a run, taken once (undefined when none is waiting). */
export function takePrimedRead(dagId: string, runId: string): RunRead | undefined {
  const key = keyOf(dagId, runId);
  const run = primed.get(key);
  if (run) primed.delete(key);
  return run;
}
