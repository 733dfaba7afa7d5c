import { sql } from "kysely";
import { roleReaches, type RunRole } from "@svc/dags";
import type { DagRunRow } from "@svc/db";
import { AlreadyExistsError, ForbiddenError } from "@svc/errors";
import type { DagRunsPort, RunView } from "../ports";
import type { TaskJob } from "@svc/queue";
import { DEFAULT_MAX_PAGE_LIMIT } from "../api/paging";
import { triggerOps } from "../api/trigger";
import type { RuntimeDeps } from "./deps";
import { dagSettingsFromConfig } from "./settings";

type Row = Pick<DagRunRow, "dag_id" | "run_id" | "state" | "logical_date" | "parent_dag_id" | "parent_run_id" | "parent_task_id" | "parent_try_number">;

const toView = (r: Row): RunView => ({
  dagId: r.dag_id,
  runId: r.run_id,
  state: r.state,
  triggeredAt: new Date(r.logical_date),
  parent:
    r.parent_dag_id && r.parent_run_id && r.parent_task_id && r.parent_try_number !== null
      ? { dagId: r.parent_dag_id, runId: r.parent_run_id, taskId: r.parent_task_id, tryNumber: r.parent_try_number }
      : null,
});

/** Failed tasks named in a reason; the rest are counted. */
const REASON_TASKS = 5;
const clip = (s: string, n = 300) => (s.length > n ? `${s.slice(0, n)}…` : s);

/**
 * The DAG runs port a worker gives an operator for one try (trigger_dag_run): runs are created
 * through the engine API's trigger (same params check as REST), linked to this try in the same
 * statement, with the rights of the parent run: the role it was triggered or approved with
 * (`trigger_role`) is checked against the child's `min_role` params and recorded on the child. A
 * paused child DAG refuses the trigger (the task fails saying so) unless its file sets
 * `triggered_runs_while_paused` and the parent's role is op or above (or it was triggered
 * internally); then that one run starts and the DAG stays paused, as a flow approved on a paused
 * DAG does.
 */
export function createDagRunsPort(deps: RuntimeDeps, job: Pick<TaskJob, "dagId" | "runId" | "taskId" | "tryNumber">): DagRunsPort {
  const parent = { dagId: job.dagId, runId: job.runId, taskId: job.taskId, tryNumber: job.tryNumber };

  async function find(dagId: string, runId: string): Promise<RunView | undefined> {
    const row = await deps.db
      .selectFrom("dag_run")
      .select(["dag_id", "run_id", "state", "logical_date", "parent_dag_id", "parent_run_id", "parent_task_id", "parent_try_number"])
      .where("dag_id", "=", dagId)
      .where("run_id", "=", runId)
      .executeTakeFirst();
    return row && toView(row);
  }

  /** The parent run's role (null: triggered internally), and whether the child starts although its DAG is paused (a refusal when it may not). */
  async function rightsFor(dagId: string): Promise<{ role: RunRole | null; runWhilePaused: boolean }> {
    const [run, dag] = await Promise.all([
      deps.db.selectFrom("dag_run").select("trigger_role").where("dag_id", "=", parent.dagId).where("run_id", "=", parent.runId).executeTakeFirst(),
      deps.db
        .selectFrom("dag")
        .select(["is_paused", sql<boolean>`coalesce((definition->>'triggered_runs_while_paused')::boolean, false)`.as("allowed")])
        .where("dag_id", "=", dagId)
        .executeTakeFirst(),
    ]);
    // A parent run that cannot be read carries no rights.
    const role = run ? run.trigger_role : "viewer";
    if (!dag?.is_paused) return { role, runWhilePaused: false };
    const paused = `DAG '${dagId}' is paused`;
    if (!dag.allowed)
      throw new ForbiddenError(`${paused}, and its file does not let triggered runs start while it is paused (triggered_runs_while_paused); unpause it, then clear this task`);
    if (role !== null && !roleReaches(role, "op")) {
      throw new ForbiddenError(
        `${paused}, and run ${parent.runId} of DAG ${parent.dagId} was triggered or approved with the role '${role}': only an op or above may start it while it is paused`,
      );
    }
    return { role, runWhilePaused: true };
  }

  async function trigger(dagId: string, runId: string, conf: Record<string, unknown>): Promise<RunView & { created: boolean }> {
    const { config } = deps;
    const { role, runWhilePaused } = await rightsFor(dagId);
    // The child's min_role params, checked against the parent's role (none: an internal trigger, unchecked).
    const callerHasRole = role === null ? undefined : (need: RunRole) => roleReaches(role, need);
    const api = triggerOps({
      db: deps.db,
      notifier: deps.notifier,
      dagsDir: config.dagsDir,
      catalog: deps.operators,
      settings: dagSettingsFromConfig(config),
      maxPageLimit: DEFAULT_MAX_PAGE_LIMIT,
      logger: deps.logger,
      cloudApproval: config.placement.cloudApproval,
    });
    // A logical date is unique per DAG: two tasks triggering one DAG in the same millisecond clash
    // on it (not on the run id); the later one takes the next millisecond.
    for (let attempt = 0; ; attempt++) {
      try {
        const run = await api.triggerDagRun(dagId, { runId, conf, runWhilePaused, callerHasRole, parent, logicalDate: new Date(Date.now() + attempt) });
        return { dagId, runId, state: run.state, triggeredAt: new Date(run.logical_date), parent, created: true };
      } catch (e) {
        if (!(e instanceof AlreadyExistsError)) throw e;
        const existing = await find(dagId, runId);
        if (existing) return { ...existing, created: false };
        if (attempt >= 4) throw e;
      }
    }
  }

  async function failureReason(dagId: string, runId: string): Promise<string> {
    const { rows } = await sql<{ task_id: string; error: string | null; line: string | null }>`
      select t.task_id, t.error,
        (select l.line from task_log l where l.dag_id = t.dag_id and l.run_id = t.run_id and l.task_id = t.task_id
           and l.try_number = t.try_number and l.stream <> 'system' order by l.id desc limit 1) as line
      from task_instance t where t.dag_id = ${dagId} and t.run_id = ${runId} and t.state = 'failed'
      order by t.task_id`.execute(deps.db);
    if (!rows.length) return "no task of it failed (the run was marked failed, or its tasks were)";
    const named = rows.slice(0, REASON_TASKS).map((r) => {
      const last = r.line ? `; last log line: ${clip(r.line)}` : "";
      return `task ${r.task_id} failed: ${clip(r.error ?? "no error recorded")}${last}`;
    });
    const more = rows.length > REASON_TASKS ? ` (and ${rows.length - REASON_TASKS} more failed tasks)` : "";
    return named.join(" | ") + more;
  }

  return { find, trigger, failureReason };
}
