import { sql } from "kysely";
import { TASK_STATES, type Db, type TaskInstanceRow, type TaskState } from "@svc/db";
import { BadRequestError, NotFoundError } from "@svc/errors";
import type { ApiContext } from "./deps";
import { resolvePage, type DateRangeFilters, type PageQuery } from "./paging";
import type { ApiTaskInstance, ApiTaskInstanceCollection } from "./schemas";
import { taskInstanceToApi } from "./serialize";
import { parseApiDate } from "./trigger";
import { requireRun } from "./dag-runs";
import { triggeredRunsOf } from "./triggered-runs";

export interface ListTaskInstancesQuery extends Omit<PageQuery, "order_by">, DateRangeFilters {
  /** Task states; `none` (or null) selects task instances without a state yet. */
  state?: (string | null)[];
  duration_gte?: number;
  duration_lte?: number;
  /** Every task instance runs in pool `default_pool`, queue `default`, the default executor. */
  pool?: string[];
  queue?: string[];
  executor?: string[];
}

const DATE_FILTERS = [
  ["execution_date", "dag_run.logical_date"],
  ["start_date", "task_instance.start_date"],
  ["end_date", "task_instance.end_date"],
  ["updated_at", "task_instance.updated_at"],
] as const;

/** Task states as filters; `none` is Airflow's word for "no state yet". */
export function parseTaskStates(states: (string | null)[], field = "state"): { values: TaskState[]; none: boolean } {
  const values: TaskState[] = [];
  let none = false;
  for (const s of states) {
    if (s === null || s === "none" || s === "null") none = true;
    else if ((TASK_STATES as readonly string[]).includes(s)) values.push(s as TaskState);
    else throw new BadRequestError(`${field}: '${s}' is not one of none, ${TASK_STATES.join(", ")}`, { field });
  }
  return { values, none };
}

/** Reading task instances. */
export function taskInstanceOps(ctx: ApiContext) {
  const { db } = ctx;

  /** Task instances of one run (`~` for dag_id and/or run_id: all), ordered by run then task id. */
  async function listTaskInstances(dagId: string, runId: string, q: ListTaskInstancesQuery = {}): Promise<ApiTaskInstanceCollection> {
    const { limit, offset } = resolvePage(q, ctx.maxPageLimit);
    if (dagId !== "~" && runId !== "~") await requireRun(db, dagId, runId);
    let base = db
      .selectFrom("task_instance")
      .innerJoin("dag_run", (j) => j.onRef("dag_run.dag_id", "=", "task_instance.dag_id").onRef("dag_run.run_id", "=", "task_instance.run_id"));
    if (dagId !== "~") base = base.where("task_instance.dag_id", "=", dagId);
    if (runId !== "~") base = base.where("task_instance.run_id", "=", runId);
    if (q.state?.length) {
      const { values, none } = parseTaskStates(q.state);
      base = base.where((eb) => eb.or([...(values.length ? [eb("task_instance.state", "in", values)] : []), ...(none ? [eb("task_instance.state", "is", null)] : [])]));
    }
    for (const [name, column] of DATE_FILTERS) {
      const gte = q[`${name}_gte`];
      const lte = q[`${name}_lte`];
      if (gte !== undefined) base = base.where(column, ">=", parseApiDate(gte, `${name}_gte`));
      if (lte !== undefined) base = base.where(column, "<=", parseApiDate(lte, `${name}_lte`));
    }
    if (q.duration_gte !== undefined) base = base.where("task_instance.duration", ">=", q.duration_gte);
    if (q.duration_lte !== undefined) base = base.where("task_instance.duration", "<=", q.duration_lte);
    const constants: [string[] | undefined, string][] = [
      [q.pool, "default_pool"],
      [q.queue, "default"],
      [q.executor, "default"],
    ];
    if (constants.some(([want, have]) => want?.length && !want.includes(have))) base = base.where(sql<boolean>`false`);

    const [{ n }, rows] = await Promise.all([
      base.select(sql<number>`count(*)::int`.as("n")).executeTakeFirstOrThrow(),
      base
        .selectAll("task_instance")
        .select("dag_run.logical_date as run_logical_date")
        .select(triggeredRunsOf("task_instance").as("triggered"))
        .orderBy("dag_run.id")
        .orderBy("task_instance.task_id")
        .limit(limit)
        .offset(offset)
        .execute(),
    ]);
    return { task_instances: rows.map((r) => taskInstanceToApi(r, r.run_logical_date, r.triggered)), total_entries: n };
  }

  async function getTaskInstance(dagId: string, runId: string, taskId: string): Promise<ApiTaskInstance> {
    const { ti, logicalDate } = await requireTaskInstance(db, dagId, runId, taskId);
    const { triggered } = await db
      .selectFrom("task_instance as ti")
      .select(triggeredRunsOf("ti").as("triggered"))
      .where("ti.dag_id", "=", dagId)
      .where("ti.run_id", "=", runId)
      .where("ti.task_id", "=", taskId)
      .executeTakeFirstOrThrow();
    return taskInstanceToApi(ti, logicalDate, triggered);
  }

  return { listTaskInstances, getTaskInstance };
}

/** The task instance with its run's logical date, or a 404 naming what is missing. */
export async function requireTaskInstance(db: Db, dagId: string, runId: string, taskId: string): Promise<{ ti: TaskInstanceRow; logicalDate: Date }> {
  const run = await requireRun(db, dagId, runId);
  const ti = await db.selectFrom("task_instance").selectAll().where("dag_id", "=", dagId).where("run_id", "=", runId).where("task_id", "=", taskId).executeTakeFirst();
  if (!ti) throw new NotFoundError("task_instance_not_found", `Task instance not found: task '${taskId}' in DAG run '${runId}' of DAG '${dagId}'`);
  return { ti, logicalDate: run.logical_date };
}
