import { sql } from "kysely";
import type { RuntimeDeps } from "./deps";
import { nowOf } from "./deps";
import { triesOfRunningRuns } from "./running-tries";

/** Extra tries granted after worker loss before a task is failed (a task that kills its worker). */
export const MAX_ZOMBIE_RETRIES = 3;

/**
 * Running tries whose worker stopped heartbeating are zombies: the try is closed with a log line
 * and the task is retried at once by another worker, without consuming its own retries.
 */
export async function reapZombies(deps: Pick<RuntimeDeps, "db" | "notifier" | "logger" | "config" | "clock">): Promise<number> {
  const now = nowOf(deps);
  const cutoff = new Date(now.getTime() - deps.config.worker.zombieAfterMs);
  const zombies = await triesOfRunningRuns(deps.db, "running")
    .select(["ti.dag_id", "ti.run_id", "ti.task_id", "ti.try_number", "ti.worker_id", "ti.zombie_count"])
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
    .execute();

  for (const z of zombies) {
    const retry = z.zombie_count < MAX_ZOMBIE_RETRIES;
    const version = await deps.db.transaction().execute(async (tx) => {
      const row = await tx
        .updateTable("task_instance")
        .set({
          state: retry ? "up_for_retry" : "failed",
          end_date: now,
          next_retry_at: retry ? now : null,
          max_tries: retry ? sql`max_tries + 1` : sql`max_tries`,
          zombie_count: sql`zombie_count + 1`,
          error: `worker ${z.worker_id ?? "?"} stopped heartbeating`,
          updated_at: now,
        })
        .where("dag_id", "=", z.dag_id)
        .where("run_id", "=", z.run_id)
        .where("task_id", "=", z.task_id)
        .where("state", "=", "running")
        .where("try_number", "=", z.try_number)
        .returning("task_id")
        .executeTakeFirst();
      if (!row) return undefined;
      await tx
        .insertInto("task_log")
        .values({
          dag_id: z.dag_id,
          run_id: z.run_id,
          task_id: z.task_id,
          try_number: z.try_number,
          stream: "system",
          line: `worker ${z.worker_id ?? "?"} stopped heartbeating; ${retry ? "the task will be retried on another worker" : "too many lost workers, task failed"}`,
        })
        .execute();
      const r = await tx
        .updateTable("dag_run")
        .set({ version: sql`version + 1` })
        .where("dag_id", "=", z.dag_id)
        .where("run_id", "=", z.run_id)
        .returning("version")
        .executeTakeFirst();
      return r?.version;
    });
    if (version !== undefined) {
      deps.logger.warn({ dagId: z.dag_id, runId: z.run_id, taskId: z.task_id, try: z.try_number, workerId: z.worker_id }, "zombie try reaped");
      await deps.notifier.runChanged(z.dag_id, z.run_id, version);
    }
  }
  return zombies.length;
}
