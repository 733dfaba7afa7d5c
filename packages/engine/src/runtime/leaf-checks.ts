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
  /** A try settled; true when it was the last of its run in hand and a deferred check is owed. */
  end(job: TaskJob): boolean;
}

export function leafChecks(): LeafChecks {
  const runs = new Map<string, { inHand: number; owed: boolean }>();
  return {
    begin(job) {
      const k = runKey(job);
      const r = runs.get(k);
      if (r) r.inHand++;
      else runs.set(k, { inHand: 1, owed: false });
    },
    defer(job) {
      const r = runs.get(runKey(job));
      if (!r || r.inHand < 2) return false;
      r.owed = true;
      return true;
    },
    end(job) {
      const k = runKey(job);
      const r = runs.get(k);
      if (!r) return false;
      if (--r.inHand > 0) return false;
      runs.delete(k);
      return r.owed;
    },
  };
}
