import { sql } from "kysely";
import { validateParams, type DagDefinition } from "@svc/dags";
import type { DagRunRow } from "@svc/db";
import { AlreadyExistsError, BadRequestError, DagHasImportErrorsError, DagNotFoundError, ParamsInvalidError } from "@svc/errors";
import { getImportErrorForDag } from "../processor";
import type { ApiContext } from "./deps";
import type { ApiDagRun } from "./schemas";
import { dagRunToApi, isoDate } from "./serialize";

export type RunType = DagRunRow["run_type"];

export interface TriggerOptions {
  /** Run parameters; validated against the DAG's params schema, defaults applied. */
  conf?: Record<string, unknown>;
  /** Default `<run_type>__<ISO logical date>`. */
  runId?: string;
  /** ISO 8601 with offset (or a Date); default now. */
  logicalDate?: string | Date;
  note?: string | null;
  runType?: RunType;
}

/** Airflow's default `allowed_run_id_pattern`. */
export const RUN_ID_PATTERN = /^[A-Za-z0-9_.~:+-]{1,250}$/;
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

/** Parse an API date: ISO 8601 with a timezone offset; `field` names it in the error. */
export function parseApiDate(value: string | Date, field: string): Date {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new BadRequestError(`${field}: invalid date`, { field });
    return value;
  }
  const d = new Date(value);
  if (!ISO_WITH_OFFSET.test(value) || Number.isNaN(d.getTime())) {
    throw new BadRequestError(`${field}: expected an ISO 8601 date-time with timezone, e.g. 2024-05-01T10:00:00+00:00`, { field });
  }
  return d;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Create a queued run and its task instances (state none, try 0) in one transaction, then tell the
 * scheduler. The API never starts tasks: the scheduler moves the run to running when it may.
 */
export function triggerOps(ctx: ApiContext) {
  const { db } = ctx;

  async function triggerDagRun(dagId: string, opts: TriggerOptions = {}): Promise<ApiDagRun> {
    const dag = await db.selectFrom("dag").selectAll().where("dag_id", "=", dagId).executeTakeFirst();
    if (!dag || !dag.is_active) throw new DagNotFoundError(dagId);
    const runType = opts.runType ?? "manual";
    // Scheduled runs keep using the last good definition while the file is broken (as Airflow's
    // scheduler does); people and tools triggering by hand are told to fix the file first.
    if (runType !== "scheduled") {
      const importError = await getImportErrorForDag(db, dagId);
      if (importError) throw new DagHasImportErrorsError(dagId, importError.filename);
    }

    const conf = opts.conf ?? {};
    if (!isPlainObject(conf)) throw new BadRequestError("conf: must be a JSON object", { field: "conf" });
    const def = dag.definition as DagDefinition;
    const checked = validateParams(def, conf, ctx.settings);
    if (!checked.ok) {
      const list = checked.errors.map((e) => `${e.field}: ${e.message}`).join("; ");
      throw new ParamsInvalidError(`conf does not match the params of DAG '${dagId}': ${list}`, checked.errors);
    }

    const logical = opts.logicalDate === undefined ? new Date() : parseApiDate(opts.logicalDate, "logical_date");
    const runId = opts.runId ?? `${runType}__${isoDate(logical)}`;
    if (!RUN_ID_PATTERN.test(runId)) {
      throw new BadRequestError(`dag_run_id: '${runId}' must match ${RUN_ID_PATTERN.source}`, { field: "dag_run_id" });
    }

    const run = await db.transaction().execute(async (tx) => {
      const clash = await tx
        .selectFrom("dag_run").select(["run_id", "logical_date"])
        .where("dag_id", "=", dagId)
        .where((eb) => eb.or([eb("run_id", "=", runId), eb("logical_date", "=", logical)]))
        .executeTakeFirst();
      if (clash?.run_id === runId) throw new AlreadyExistsError(`DAGRun with DAG ID: '${dagId}' and DAGRun ID: '${runId}' already exists`);
      if (clash) throw new AlreadyExistsError(`DAGRun with DAG ID: '${dagId}' and DAGRun logical date: '${isoDate(logical)}' already exists`);
      const row = await tx
        .insertInto("dag_run")
        .values({
          dag_id: dagId,
          run_id: runId,
          state: "queued",
          run_type: runType,
          conf: JSON.stringify(checked.params),
          definition: JSON.stringify(def),
          dag_hash: dag.hash,
          logical_date: logical,
          data_interval_start: logical,
          data_interval_end: logical,
          note: opts.note ?? null,
          external_trigger: runType !== "scheduled",
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      if (def.tasks.length) {
        // Three array parameters, not seven per task: a run of 1000 tasks is one small statement.
        await sql`insert into task_instance (dag_id, run_id, task_id, state, try_number, max_tries, operator)
          select ${dagId}, ${runId}, t.task_id, null, 0, t.retries, t.operator
          from unnest(${def.tasks.map((t) => t.task_id)}::text[], ${def.tasks.map((t) => t.retries)}::int[], ${def.tasks.map((t) => t.operator)}::text[]) as t(task_id, retries, operator)`.execute(tx);
      }
      return row;
    }).catch((e: { code?: string }) => {
      // Two triggers with the same run id racing past the check: the unique key decides.
      if (e.code === "23505") throw new AlreadyExistsError(`DAGRun with DAG ID: '${dagId}' and DAGRun ID: '${runId}' already exists`);
      throw e;
    });

    ctx.logger.info({ dagId, runId, runType }, "dag run created");
    await ctx.notifier.dagChanged(dagId);
    return dagRunToApi(run);
  }

  return { triggerDagRun };
}
