import type { Db } from "@svc/db";
import type { EngineApi } from "@svc/engine";
import { waitFor } from "@svc/testing";
import type { Stack } from "./stack";

/** A DAG of `width` independent tasks (`noop`, or `sleep` for `sleepS` seconds) with room for `runs` runs at once. */
export function wideDag(dagId: string, width: number, runs: number, sleepS?: number): string {
  const task = (i: number) => (sleepS === undefined ? `  - {task_id: t${i}, operator: noop}` : `  - {task_id: t${i}, operator: sleep, args: {seconds: ${sleepS}}}`);
  return `dag_id: ${dagId}\nmax_active_runs: ${Math.min(1000, runs)}\ntasks:\n${Array.from({ length: width }, (_, i) => task(i)).join("\n")}\n`;
}

/** Parallel triggers: as many as the trigger side's connection pool serves without queueing long. */
const TRIGGER_LANES = 8;

/**
 * Trigger `runs` runs of `dagId` (TRIGGER_LANES at a time, as API clients would); seconds from the
 * first trigger to the last run's end (as recorded).
 */
export async function timeRuns(db: Db, api: EngineApi, dagId: string, runs: number, label: string, timeoutMs: number, onPhases?: (summary: string) => void): Promise<number> {
  const t0 = Date.now();
  const ids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(TRIGGER_LANES, runs) }, async () => {
      while (next < runs) {
        const i = next++;
        ids.push((await api.triggerDagRun(dagId, { runId: `${label}-${i}`, logicalDate: new Date(t0 + i) })).dag_run_id);
      }
    }),
  );
  const triggeredS = (Date.now() - t0) / 1000;
  const rows = await waitFor(
    async () => {
      const rs = await db.selectFrom("dag_run").select(["state", "end_date"]).where("dag_id", "=", dagId).where("run_id", "in", ids).execute();
      return rs.length === ids.length && rs.every((r) => r.state === "success" || r.state === "failed") ? rs : undefined;
    },
    { timeoutMs, intervalMs: 100, what: `${runs} runs of ${dagId}` },
  );
  const failed = rows.filter((r) => r.state !== "success").length;
  if (failed) throw new Error(`${failed} runs of ${dagId} failed`);
  if (onPhases) {
    // Where the time went: the trigger loop, the runs' starts (scheduler) and their ends.
    const t = await db.selectFrom("dag_run").select(["start_date", "end_date"]).where("dag_id", "=", dagId).where("run_id", "in", ids).execute();
    const at = (xs: (Date | string | null)[]) => xs.map((x) => (new Date(x!).getTime() - t0) / 1000).sort((a, b) => a - b);
    const [starts, ends] = [at(t.map((r) => r.start_date)), at(t.map((r) => r.end_date))];
    const q = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!.toFixed(2);
    onPhases(`triggers done ${triggeredS.toFixed(2)} s; runs started p50 ${q(starts, 50)} s, last ${q(starts, 100)} s; runs ended p50 ${q(ends, 50)} s, last ${q(ends, 100)} s`);
  }
  return (Math.max(...rows.map((r) => new Date(r.end_date!).getTime())) - t0) / 1000;
}

/** Replace the stack's workers by `n` and wait until each has sent a heartbeat. */
export async function withWorkers(db: Db, stack: Stack, n: number): Promise<void> {
  await stack.setWorkers(n);
  const since = new Date();
  await waitFor(
    async () => {
      const pids = stack.workers.map((w) => w.pid()).filter((p): p is number => p !== undefined);
      if (pids.length < n) return undefined;
      const rows = await db.selectFrom("component_heartbeat").select("pid").where("component", "=", "worker").where("last_seen", ">=", since).where("pid", "in", pids).execute();
      return new Set(rows.map((r) => r.pid)).size >= n;
    },
    { timeoutMs: 120000, intervalMs: 250, what: `${n} workers up` },
  );
}
