import type { Db } from "@svc/db";

/**
 * Task instances in `state` of the running runs, as a query callers narrow further. Only running
 * runs hold queued or running tries (a run ends when all its tasks have; a run set back to queued
 * by hand is looked at again once it runs). No index reads state (migration 006), so the tries are
 * reached by key, run by run, from dag_run's state index.
 */
export function triesOfRunningRuns(db: Db, state: "queued" | "running") {
  return db
    .selectFrom("dag_run as r")
    .innerJoinLateral(
      (eb) =>
        eb
          .selectFrom("task_instance as ti")
          .select(["ti.dag_id", "ti.run_id", "ti.task_id", "ti.try_number", "ti.worker_id", "ti.zombie_count", "ti.queued_at", "ti.start_date", "ti.operator", "ti.host"])
          .whereRef("ti.dag_id", "=", "r.dag_id")
          .whereRef("ti.run_id", "=", "r.run_id")
          .where("ti.state", "=", state)
          .as("ti"),
      (join) => join.onTrue(),
    )
    .where("r.state", "=", "running");
}
