import type { TaskJob } from "@svc/queue";
import { runKey } from "./try-ops";

/**
 * Which runs a worker has tries of in hand (received, outcome not yet settled), so that a finished
 * leaf can leave the "does the run still have unfinished tasks?" check to a later try of the same
 * run: while this worker holds another try of the run, that try is unfinished, so the answer is
 * yes. The last try of a run to settle here (landed, dropped or lost) asks on behalf of those that
 * deferred. Of all workers, the one whose try of the run lands last asks after every landing, so
 * a finished run is still seen at once; wide fan-outs ask about once per burst, not once per task.
 */
export interface LeafChecks {
  /** A try of the run was received. */
  begin(job: TaskJob): void;
  /** A leaf landed: true if it may skip its check (another try of the run is in hand; the check is then owed). */
  defer(job: TaskJob): boolean;
  /**
   * A success whose downstream joins wait for other upstream tasks landed: true if, for each join,
   * this worker holds a try of another of its upstream tasks (the join cannot be ready before that
   * try ends). The run's evaluation is then owed by the last try of the run to settle here.
   */
  deferJoins(job: TaskJob, joins: readonly ReadonlySet<string>[]): boolean;
  /** A try settled: what is owed when it was the last of its run in hand (an evaluation, or the leaves' check). */
  end(job: TaskJob): "evaluate" | "check" | undefined;
}

export function leafChecks(): LeafChecks {
  const runs = new Map<string, { inHand: number; tasks: Map<string, number>; owed?: "evaluate" | "check" }>();
  return {
    begin(job) {
      const k = runKey(job);
      let r = runs.get(k);
      if (!r) runs.set(k, (r = { inHand: 0, tasks: new Map() }));
      r.inHand++;
      r.tasks.set(job.taskId, (r.tasks.get(job.taskId) ?? 0) + 1);
    },
    defer(job) {
      const r = runs.get(runKey(job));
      if (!r || r.inHand < 2) return false;
      r.owed ??= "check";
      return true;
    },
    deferJoins(job, joins) {
      const r = runs.get(runKey(job));
      if (!r || r.inHand < 2) return false;
      const held = (join: ReadonlySet<string>) => [...r.tasks.keys()].some((t) => t !== job.taskId && join.has(t));
      if (!joins.every(held)) return false;
      r.owed = "evaluate";
      return true;
    },
    end(job) {
      const k = runKey(job);
      const r = runs.get(k);
      if (!r) return undefined;
      const n = r.tasks.get(job.taskId) ?? 0;
      if (n > 1) r.tasks.set(job.taskId, n - 1);
      else r.tasks.delete(job.taskId);
      if (--r.inHand > 0) return undefined;
      runs.delete(k);
      return r.owed;
    },
  };
}
