import { sql } from "kysely";
import { restrictedParamsSet, restrictedWhat, validateParams, type ParamRole, type RunRole } from "@svc/dags";
import { runPrepared, type DagRunRow } from "@svc/db";
import { AlreadyExistsError, BadRequestError, DagHasImportErrorsError, DagNotFoundError, ForbiddenError, ParamsInvalidError } from "@svc/errors";
import { dagDefinition } from "../runtime/definition-cache";
import { cloudTargets } from "./cloud-approval";
import type { ApiContext } from "./deps";
import type { ApiDagRun } from "./schemas";
import { DAG_RUN_API_COLUMNS, dagRunToApi, isoDate, type ApiDagRunRow } from "./serialize";

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
  /**
   * Start this run although the DAG is paused, leaving the DAG paused (a flow an operator approved).
   * Not part of the REST API: a paused DAG's triggered runs wait until it is unpaused, as in Airflow.
   */
  runWhilePaused?: boolean;
  /**
   * Whether the caller's role reaches `role`, for params declaring `min_role` that conf sets to
   * something other than their default (403 when not). The run records the highest role it grants
   * (`trigger_role`; viewer when it grants none), and the runs its tasks trigger carry that role.
   * Absent: an internal caller (the scheduler, the operator's CLI), which may set them; the run
   * records no role.
   */
  callerHasRole?: (role: ParamRole) => boolean;
  /** The task instance and try creating this run (operator trigger_dag_run); not part of the REST API. */
  parent?: { dagId: string; runId: string; taskId: string; tryNumber: number };
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

/** The role a run records: the highest its trigger's check grants (viewer: none), null for an internal caller. */
function recordedRole(callerHasRole: TriggerOptions["callerHasRole"]): RunRole | null {
  if (!callerHasRole) return null;
  return (["admin", "op", "user"] as const).find((r) => callerHasRole(r)) ?? "viewer";
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Create a queued run and its task instances (state none, try 0) in one statement, then tell the
 * scheduler. The API never starts tasks: the scheduler moves the run to running when it may.
 */
export function triggerOps(ctx: ApiContext) {
  const { db } = ctx;

  async function triggerDagRun(dagId: string, opts: TriggerOptions = {}): Promise<ApiDagRun> {
    for (let attempt = 1; ; attempt++) {
      const run = await createRun(dagId, opts);
      if (run) {
        ctx.logger.info({ dagId, runId: run.run_id, runType: run.run_type }, "dag run created");
        await ctx.notifier.dagChanged(dagId);
        return dagRunToApi(run);
      }
      // The DAG file changed between our read and the insert: validate against the new definition.
      if (attempt === 3) throw new Error(`DAG '${dagId}' kept changing while a run was being created; try again`);
    }
  }

  // The hash each DAG had when this API last created a run of it. A trigger first validates against
  // that hash's definition and lets the insert itself check that the DAG is still active, at that
  // hash and, for a run not scheduled, without import errors: one statement instead of two. When
  // the insert finds otherwise, or the validation fails, the DAG is read again and checked as usual.
  const lastHash = new Map<string, string>();

  /** One attempt: undefined when the DAG's definition changed since it was read. */
  async function createRun(dagId: string, opts: TriggerOptions): Promise<ApiDagRunRow | undefined> {
    const seen = lastHash.get(dagId);
    if (seen !== undefined) {
      const run = await insertRun(dagId, seen, opts).catch(() => undefined);
      if (run) return run;
      lastHash.delete(dagId);
    }
    const [dag] = await runPrepared(
      db,
      db
        .selectFrom("dag")
        .select(["dag_id", "is_active", "fileloc", "hash", sql<boolean>`exists (select 1 from import_error e where e.filename = dag.fileloc)`.as("broken")])
        .where("dag_id", "=", dagId),
    );
    if (!dag || !dag.is_active) throw new DagNotFoundError(dagId);
    // Scheduled runs keep using the last good definition while the file is broken (as Airflow's
    // scheduler does); people and tools triggering by hand are told to fix the file first.
    if ((opts.runType ?? "manual") !== "scheduled" && dag.broken) throw new DagHasImportErrorsError(dagId, dag.fileloc);
    const run = await insertRun(dagId, dag.hash, opts);
    if (run) lastHash.set(dagId, dag.hash);
    return run;
  }

  /**
   * Validate the conf against the definition of `hash` and insert the run with its task instances,
   * only while the DAG is active at that hash (and without import errors, unless scheduled).
   * Undefined when the DAG no longer has that hash or no longer qualifies.
   */
  async function insertRun(dagId: string, hash: string, opts: TriggerOptions): Promise<ApiDagRunRow | undefined> {
    const runType = opts.runType ?? "manual";
    const def = await dagDefinition(db, dagId, hash);
    if (!def) return undefined;

    const conf = opts.conf ?? {};
    if (!isPlainObject(conf)) throw new BadRequestError("conf: must be a JSON object", { field: "conf" });
    const denied = opts.callerHasRole ? restrictedParamsSet(def, conf).filter((p) => !opts.callerHasRole!(p.minRole)) : [];
    if (denied.length) {
      const list = denied.map((p) => `${restrictedWhat(p, "conf")} needs the role '${p.minRole}' or above`).join("; ");
      throw new ForbiddenError(`${list}; leave it out to use its default`, { fields: denied.map((p) => `conf.${p.name}`) });
    }
    const checked = validateParams(def, conf, ctx.settings);
    if (!checked.ok) {
      const list = checked.errors.map((e) => `${e.field}: ${e.message}`).join("; ");
      throw new ParamsInvalidError(`conf does not match the params of DAG '${dagId}': ${list}`, checked.errors);
    }

    // A VM on a cloud host bills an account: a caller below op may not start one (SVC_CLOUD_APPROVAL=op).
    if (opts.callerHasRole && ctx.cloudApproval === "op" && !opts.callerHasRole("op")) {
      const clouds = await cloudTargets(db, def, checked.params);
      if (clouds.length) {
        throw new ForbiddenError(`a VM-creating run on a cloud host needs the role 'op' or an op's approval (SVC_CLOUD_APPROVAL=op): ${clouds.join("; ")}`, {
          fields: ["conf.host"],
        });
      }
    }

    const logical = opts.logicalDate === undefined ? new Date() : parseApiDate(opts.logicalDate, "logical_date");
    const runId = opts.runId ?? `${runType}__${isoDate(logical)}`;
    if (!RUN_ID_PATTERN.test(runId)) {
      throw new BadRequestError(`dag_run_id: '${runId}' must match ${RUN_ID_PATTERN.source}`, { field: "dag_run_id" });
    }

    const p = opts.parent;
    // One statement: the run, with the definition snapshot copied in the database from the DAG
    // row at the hash just validated, and its task instances (state none, try 0). A logical date
    // already taken inserts nothing; a run id already taken violates the unique key.
    const rows = await runPrepared(
      db,
      sql<ApiDagRunRow>`
      with r as (
        insert into dag_run (dag_id, run_id, state, run_type, conf, definition, dag_hash, logical_date, data_interval_start, data_interval_end, note, external_trigger, run_while_paused,
          parent_dag_id, parent_run_id, parent_task_id, parent_try_number, trigger_role)
        select d.dag_id, ${runId}, 'queued', ${runType}, ${JSON.stringify(checked.params)}::jsonb, d.definition, d.hash, ${logical}, ${logical}, ${logical}, ${opts.note ?? null}, ${runType !== "scheduled"}, ${opts.runWhilePaused === true},
          ${p?.dagId ?? null}, ${p?.runId ?? null}, ${p?.taskId ?? null}, ${p?.tryNumber ?? null}::int, ${recordedRole(opts.callerHasRole)}::text
        from dag d
        where d.dag_id = ${dagId} and d.hash = ${hash} and d.is_active
          and (${runType === "scheduled"}::boolean or not exists (select 1 from import_error e where e.filename = d.fileloc))
          and not exists (select 1 from dag_run x where x.dag_id = ${dagId} and x.logical_date = ${logical})
        returning ${sql.join(DAG_RUN_API_COLUMNS.map((c) => sql.ref(c)))}),
      t as (
        insert into task_instance (dag_id, run_id, task_id, state, try_number, max_tries, operator)
        select r.dag_id, r.run_id, x.task_id, null, 0, x.retries, x.operator
        from r cross join unnest(${def.tasks.map((t) => t.task_id)}::text[], ${def.tasks.map((t) => t.retries)}::int[], ${def.tasks.map((t) => t.operator)}::text[]) as x(task_id, retries, operator))
      select * from r`,
    ).catch((e: { code?: string }) => {
      // Two triggers with the same run id: the unique key decides.
      if (e.code === "23505") throw runIdTaken(dagId, runId);
      throw e;
    });
    if (rows[0]) return rows[0];
    const clash = await db
      .selectFrom("dag_run")
      .select("run_id")
      .where("dag_id", "=", dagId)
      .where((eb) => eb.or([eb("run_id", "=", runId), eb("logical_date", "=", logical)]))
      .execute();
    if (clash.some((c) => c.run_id === runId)) throw runIdTaken(dagId, runId);
    if (clash.length) throw new AlreadyExistsError(`DAGRun with DAG ID: '${dagId}' and DAGRun logical date: '${isoDate(logical)}' already exists`);
    return undefined;
  }

  return { triggerDagRun };
}

const runIdTaken = (dagId: string, runId: string) => new AlreadyExistsError(`DAGRun with DAG ID: '${dagId}' and DAGRun ID: '${runId}' already exists`);
