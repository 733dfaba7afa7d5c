import { sql } from "kysely";
import type { RuntimeDeps } from "./deps";
import { nowOf } from "./deps";
import { triesOfRunningRuns } from "./running-tries";
import { requeueTry } from "./requeue-try";

/** Extra tries granted after worker loss before a task is failed (a task that kills its worker). */
export const MAX_ZOMBIE_RETRIES = 3;

/**
 * Running tries whose worker stopped heartbeating are zombies: the try is closed with a log line
 * and the task is retried at once by another worker, without consuming its own retries.
 */
export async function reapZombies(deps: Pick<RuntimeDeps, "db" | "notifier" | "logger" | "config" | "clock"> & Partial<Pick<RuntimeDeps, "operators">>): Promise<number> {
  const now = nowOf(deps);
  const cutoff = new Date(now.getTime() - deps.config.worker.zombieAfterMs);
  const zombies = await triesOfRunningRuns(deps.db, "running")
    .select(["ti.dag_id", "ti.run_id", "ti.task_id", "ti.try_number", "ti.worker_id", "ti.zombie_count", "ti.operator"])
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom("component_heartbeat as hb")
            .select("hb.instance_id")
            .where("hb.component", "=", "worker")
            .whereRef("hb.instance_id", "=", "ti.worker_id")
            .where("hb.last_seen", ">", cutoff),
        ),
      ),
    )
    // A try claimed moments ago by a worker whose first heartbeat is in flight is not a zombie.
    .where("ti.start_date", "<", cutoff)
    // Nobody could write a heartbeat while the database was down: after a restart, workers get a
    // whole zombie period to be heard again before any of their tries counts as lost.
    .where(sql<boolean>`pg_postmaster_start_time() < ${cutoff}`)
    .execute();

  for (const z of zombies) {
    const retry = z.zombie_count < MAX_ZOMBIE_RETRIES;
    const worker = z.worker_id ?? "?";
    // A resumable operator's try goes on as the same try (it finds what it started by its number).
    const resume = deps.operators?.get(z.operator)?.resumable === true;
    const version = await requeueTry(deps.db, now, {
      key: { dagId: z.dag_id, runId: z.run_id, taskId: z.task_id, tryNumber: z.try_number },
      retry,
      zombie: true,
      resume,
      error: `worker ${worker} stopped heartbeating`,
      line: `worker ${worker} stopped heartbeating; ${retry ? (resume ? "the same try will resume on another worker" : "the task will be retried on another worker") : "too many lost workers, task failed"}`,
    });
    if (version !== undefined) {
      deps.logger.warn({ dagId: z.dag_id, runId: z.run_id, taskId: z.task_id, try: z.try_number, workerId: z.worker_id }, "zombie try reaped");
      await deps.notifier.runChanged(z.dag_id, z.run_id, version);
    }
  }
  return zombies.length;
}
