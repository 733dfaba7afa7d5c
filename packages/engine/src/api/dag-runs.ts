import { sql } from "kysely";
import { DAG_RUN_STATES, type DagRunRow, type Db } from "@svc/db";
import { BadRequestError, DagRunNotFoundError } from "@svc/errors";
import { requireDag } from "./dags";
import type { ApiContext } from "./deps";
import { resolveOrder, resolvePage, type DateRangeFilters, type PageQuery } from "./paging";
import type { ApiDagRun, ApiDagRunCollection } from "./schemas";
import { DAG_RUN_API_COLUMNS, dagRunToApi, type ApiDagRunRow } from "./serialize";
import { parseApiDate } from "./trigger";

export interface ListDagRunsQuery extends PageQuery, DateRangeFilters {
  /** One DAG, or `~` (or undefined) for all DAGs. */
  dag_id?: string;
  /** Several DAGs (the batch form). */
  dag_ids?: string[];
  state?: string[];
}

const RUN_ORDER = {
  id: "id",
  state: "state",
  dag_id: "dag_id",
  execution_date: "logical_date",
  logical_date: "logical_date",
  dag_run_id: "run_id",
  start_date: "start_date",
  end_date: "end_date",
  updated_at: "updated_at",
  external_trigger: "external_trigger",
  conf: "conf",
} as const;

const DATE_FILTERS = [
  ["execution_date", "logical_date"],
  ["start_date", "start_date"],
  ["end_date", "end_date"],
  ["updated_at", "updated_at"],
] as const;

/** The run's API columns (not its definition snapshot) or DagRunNotFoundError. */
export async function requireRun(db: Db, dagId: string, runId: string): Promise<ApiDagRunRow> {
  const row = await db.selectFrom("dag_run").select(DAG_RUN_API_COLUMNS).where("dag_id", "=", dagId).where("run_id", "=", runId).executeTakeFirst();
  if (!row) throw new DagRunNotFoundError(dagId, runId);
  return row;
}

/** Reading and simple edits of DAG runs. */
export function dagRunOps(ctx: ApiContext) {
  const { db } = ctx;

  async function listDagRuns(q: ListDagRunsQuery = {}): Promise<ApiDagRunCollection> {
    const { limit, offset } = resolvePage(q, ctx.maxPageLimit);
    const order = resolveOrder(q.order_by, "id", RUN_ORDER);
    const bad = (q.state ?? []).find((s) => !(DAG_RUN_STATES as readonly string[]).includes(s));
    if (bad) throw new BadRequestError(`state: '${bad}' is not one of ${DAG_RUN_STATES.join(", ")}`, { field: "state" });
    if (q.dag_id && q.dag_id !== "~") await requireDag(db, q.dag_id);

    let base = db.selectFrom("dag_run");
    if (q.dag_id && q.dag_id !== "~") base = base.where("dag_id", "=", q.dag_id);
    if (q.dag_ids) base = q.dag_ids.length ? base.where("dag_id", "in", q.dag_ids) : base.where(sql<boolean>`false`);
    if (q.state?.length) base = base.where("state", "in", q.state as DagRunRow["state"][]);
    for (const [name, column] of DATE_FILTERS) {
      const gte = q[`${name}_gte`];
      const lte = q[`${name}_lte`];
      if (gte !== undefined) base = base.where(column, ">=", parseApiDate(gte, `${name}_gte`));
      if (lte !== undefined) base = base.where(column, "<=", parseApiDate(lte, `${name}_lte`));
    }
    const [{ n }, rows] = await Promise.all([
      base.select(sql<number>`count(*)::int`.as("n")).executeTakeFirstOrThrow(),
      // The API's columns only: a run's definition snapshot (large jsonb) is not part of its answer.
      base.select(DAG_RUN_API_COLUMNS).orderBy(order.column, order.direction).orderBy("id", order.direction).limit(limit).offset(offset).execute(),
    ]);
    return { dag_runs: rows.map(dagRunToApi), total_entries: n };
  }

  async function getDagRun(dagId: string, runId: string): Promise<ApiDagRun> {
    return dagRunToApi(await requireRun(db, dagId, runId));
  }

  async function setRunNote(dagId: string, runId: string, note: string): Promise<ApiDagRun> {
    const row = await db
      .updateTable("dag_run")
      .set({ note, updated_at: new Date() })
      .where("dag_id", "=", dagId)
      .where("run_id", "=", runId)
      .returning(DAG_RUN_API_COLUMNS)
      .executeTakeFirst();
    if (!row) throw new DagRunNotFoundError(dagId, runId);
    return dagRunToApi(row);
  }

  /** Delete a run with its task instances and logs; a freed slot may let a queued run start. */
  async function deleteDagRun(dagId: string, runId: string): Promise<void> {
    const deleted = await db.transaction().execute(async (tx) => {
      const res = await tx.deleteFrom("dag_run").where("dag_id", "=", dagId).where("run_id", "=", runId).executeTakeFirst();
      // Logs carry no foreign key (it would lock the run row on every line); they go explicitly.
      if (res.numDeletedRows) await tx.deleteFrom("task_log").where("dag_id", "=", dagId).where("run_id", "=", runId).execute();
      return res.numDeletedRows > 0n;
    });
    if (!deleted) throw new DagRunNotFoundError(dagId, runId);
    ctx.logger.info({ dagId, runId }, "dag run deleted");
    await ctx.notifier.dagChanged(dagId);
  }

  return { listDagRuns, getDagRun, setRunNote, deleteDagRun };
}
