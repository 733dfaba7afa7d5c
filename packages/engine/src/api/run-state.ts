import { sql, type ExpressionBuilder } from "kysely";
import type { Database, TaskState } from "@svc/db";
import { BadRequestError } from "@svc/errors";
import { bumpVersion, clearInRun, lockRun, writeRun } from "./clear-core";
import type { ApiContext } from "./deps";
import type { ApiDagRun, ApiTaskInstanceCollection } from "./schemas";
import { dagRunToApi, taskInstanceToApi } from "./serialize";

export type MarkableRunState = "success" | "failed" | "queued";
const MARKABLE: readonly string[] = ["success", "failed", "queued"];
const FINISHED: TaskState[] = ["success", "failed", "skipped", "upstream_failed"];

/** Marking and clearing whole runs (Airflow's PATCH dagRun state and POST .../clear). */
export function runStateOps(ctx: ApiContext) {
  const { db } = ctx;

  /**
   * Airflow semantics: success marks every unfinished task instance success; failed marks running
   * and queued ones failed and the other unfinished ones skipped; queued only re-queues the run.
   */
  async function markRun(dagId: string, runId: string, state: MarkableRunState): Promise<ApiDagRun> {
    if (!MARKABLE.includes(state)) throw new BadRequestError(`state: must be one of ${MARKABLE.join(", ")}`, { field: "state" });
    const run = await writeRun(db, ctx.notifier, async (tx) => {
      const locked = await lockRun(tx, dagId, runId);
      const now = new Date();
      const tis = () => tx.updateTable("task_instance").where("dag_id", "=", dagId).where("run_id", "=", runId);
      const unfinished = (eb: ExpressionBuilder<Database, "task_instance">) => eb.or([eb("state", "is", null), eb("state", "not in", FINISHED)]);
      const done = {
        end_date: now,
        start_date: sql<Date>`coalesce(start_date, ${now})`,
        duration: sql<number>`extract(epoch from (${now}::timestamptz - coalesce(start_date, ${now})))`,
        next_retry_at: null,
        worker_id: null,
        updated_at: now,
      };
      if (state === "success") {
        await tis()
          .set({ ...done, state: "success" })
          .where(unfinished)
          .execute();
      } else if (state === "failed") {
        await tis()
          .set({ ...done, state: "failed" })
          .where("state", "in", ["running", "queued"])
          .execute();
        await tis()
          .set({ ...done, state: "skipped" })
          .where(unfinished)
          .execute();
      }
      const runSet =
        state === "queued"
          ? { state, end_date: null, start_date: null, queued_at: now, last_scheduling_decision: null }
          : { state, end_date: now, start_date: sql<Date>`coalesce(start_date, ${now})` };
      const version = await bumpVersion(tx, locked.id, runSet);
      const row = await tx.selectFrom("dag_run").selectAll().where("id", "=", locked.id).executeTakeFirstOrThrow();
      return { result: row, writes: [{ dagId, runId, version, requeued: state === "queued", ended: state !== "queued" }] };
    });
    ctx.logger.info({ dagId, runId, state }, "dag run marked");
    return dagRunToApi(run);
  }

  /**
   * Clear every task instance of a run so it runs again. `dryRun` (default true, as in Airflow)
   * returns the task instances that would be cleared and changes nothing.
   */
  async function clearDagRun(dagId: string, runId: string, opts: { dryRun?: boolean } = {}): Promise<ApiDagRun | ApiTaskInstanceCollection> {
    const dryRun = opts.dryRun ?? true;
    return writeRun<ApiDagRun | ApiTaskInstanceCollection>(db, ctx.notifier, async (tx) => {
      const run = await lockRun(tx, dagId, runId);
      const tis = await tx.selectFrom("task_instance").selectAll().where("dag_id", "=", dagId).where("run_id", "=", runId).orderBy("task_id").execute();
      if (dryRun) {
        return { result: { task_instances: tis.map((t) => taskInstanceToApi(t, run.logical_date)), total_entries: tis.length }, writes: [] };
      }
      const write = await clearInRun(
        tx,
        run,
        tis.map((t) => t.task_id),
      );
      const row = await tx.selectFrom("dag_run").selectAll().where("id", "=", run.id).executeTakeFirstOrThrow();
      ctx.logger.info({ dagId, runId, tasks: tis.length }, "dag run cleared");
      return { result: dagRunToApi(row), writes: [write] };
    });
  }

  return { markRun, clearDagRun };
}
