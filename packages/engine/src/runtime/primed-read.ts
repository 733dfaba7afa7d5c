import type { RunRead } from "./run-read";

/**
 * Runs as an earlier statement returned them (the start pass, migration 016; the open check that
 * found them without unfinished tasks, migration 017), kept only while the evaluation they were
 * handed to is asked for: its first pass decides from them instead of reading the run again. Per process; a primed read that is stale by then (an API write since)
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
