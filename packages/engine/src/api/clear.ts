import type { DagDefinition } from "@svc/dags";
import type { TaskState } from "@svc/db";
import { BadRequestError } from "@svc/errors";
import { clearInRun, writeRun, type RunWrite } from "./clear-core";
import { requireRun } from "./dag-runs";
import { requireDag } from "./dags";
import { expandTaskIds } from "./dag-graph";
import type { ApiContext } from "./deps";
import type { ApiTaskInstanceReference, ApiTaskInstanceReferenceCollection } from "./schemas";
import { taskInstanceRef } from "./serialize";
import { parseApiDate } from "./trigger";

/** Airflow's ClearTaskInstances body (same names, same defaults). */
export interface ClearTaskInstancesOptions {
  /** Default true: only report what would be cleared. */
  dry_run?: boolean;
  task_ids?: string[];
  dag_run_id?: string | null;
  /** Bounds on the runs' logical dates (not with dag_run_id). */
  start_date?: string | Date;
  end_date?: string | Date;
  /** Default true: only failed and upstream_failed task instances. */
  only_failed?: boolean;
  /** Default false: only running task instances. */
  only_running?: boolean;
  include_upstream?: boolean;
  include_downstream?: boolean;
  /** With dag_run_id: also the DAG's later (future) or earlier (past) runs. */
  include_future?: boolean;
  include_past?: boolean;
  /** Accepted for compatibility; a cleared finished run always goes back to queued. */
  reset_dag_runs?: boolean;
  include_subdags?: boolean;
  include_parentdag?: boolean;
}

const FAILED: TaskState[] = ["failed", "upstream_failed"];

/** POST /dags/{dag_id}/clearTaskInstances. */
export function clearOps(ctx: ApiContext) {
  const { db } = ctx;

  async function clearTaskInstances(dagId: string, opts: ClearTaskInstancesOptions = {}): Promise<ApiTaskInstanceReferenceCollection> {
    const dag = await requireDag(db, dagId);
    const dryRun = opts.dry_run ?? true;
    const onlyFailed = opts.only_failed ?? true;
    if (opts.dag_run_id && (opts.start_date !== undefined || opts.end_date !== undefined)) {
      throw new BadRequestError("dag_run_id: cannot be combined with start_date or end_date", { field: "dag_run_id" });
    }
    if (opts.task_ids) {
      if (!opts.task_ids.length) throw new BadRequestError("task_ids: must name at least one task", { field: "task_ids" });
      const known = new Set((dag.definition as DagDefinition).tasks.map((t) => t.task_id));
      const unknown = opts.task_ids.filter((t) => !known.has(t));
      if (unknown.length) throw new BadRequestError(`task_ids: unknown task(s) ${unknown.map((t) => `'${t}'`).join(", ")} in DAG '${dagId}'`, { field: "task_ids" });
    }
    let from = opts.start_date === undefined ? undefined : parseApiDate(opts.start_date, "start_date");
    let to = opts.end_date === undefined ? undefined : parseApiDate(opts.end_date, "end_date");
    if (opts.dag_run_id) {
      const anchor = await requireRun(db, dagId, opts.dag_run_id);
      from = opts.include_past ? undefined : anchor.logical_date;
      to = opts.include_future ? undefined : anchor.logical_date;
    }

    return writeRun(db, ctx.notifier, async (tx) => {
      let runsQ = tx.selectFrom("dag_run").selectAll().where("dag_id", "=", dagId);
      if (from) runsQ = runsQ.where("logical_date", ">=", from);
      if (to) runsQ = runsQ.where("logical_date", "<=", to);
      // Lock in id order: two clears over overlapping runs cannot deadlock.
      const runs = await (dryRun ? runsQ.orderBy("id") : runsQ.orderBy("id").forUpdate()).execute();
      const refs: ApiTaskInstanceReference[] = [];
      const writes: RunWrite[] = [];
      for (const run of runs) {
        const def = run.definition as DagDefinition;
        let tisQ = tx.selectFrom("task_instance").select(["dag_id", "run_id", "task_id"]).where("dag_id", "=", dagId).where("run_id", "=", run.run_id);
        if (opts.task_ids) {
          const ids = expandTaskIds(def.tasks, opts.task_ids, { upstream: opts.include_upstream, downstream: opts.include_downstream });
          tisQ = tisQ.where("task_id", "in", [...ids]);
        }
        if (onlyFailed) tisQ = tisQ.where("state", "in", FAILED);
        if (opts.only_running) tisQ = tisQ.where("state", "=", "running");
        const tis = await tisQ.orderBy("task_id").execute();
        if (!tis.length) continue;
        refs.push(...tis.map((t) => taskInstanceRef(t, run.logical_date)));
        if (!dryRun)
          writes.push(
            await clearInRun(
              tx,
              run,
              tis.map((t) => t.task_id),
            ),
          );
      }
      if (!dryRun) ctx.logger.info({ dagId, runs: writes.length, tasks: refs.length }, "task instances cleared");
      return { result: { task_instances: refs }, writes };
    });
  }

  return { clearTaskInstances };
}
