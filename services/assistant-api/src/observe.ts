import { observeRun, type ObservedTask } from "@svc/assistant";
import type { ApiDagRun, ApiTaskInstance, EngineApi } from "@svc/engine";
import { isSvcError, statusOf } from "@svc/errors";
import { workflowUiUrlOf } from "@svc/flows";
import { silentLogger, type Logger } from "@svc/logger";
import type { Observation } from "./schemas";

/** Lines of each failed task's log the observation carries (the reference system's tail). */
export const LOG_TAIL_LINES = 50;
const PAGE = 100;

type ObserveEngine = Pick<EngineApi, "getDag" | "getDagRun" | "listDagRuns" | "listTaskInstances" | "getTaskLog">;

/** Every task instance of a run, page by page. */
export async function allTaskInstances(engine: Pick<EngineApi, "listTaskInstances">, dagId: string, runId: string): Promise<ApiTaskInstance[]> {
  const out: ApiTaskInstance[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await engine.listTaskInstances(dagId, runId, { limit: PAGE, offset });
    out.push(...page.task_instances);
    if (page.task_instances.length < PAGE || out.length >= page.total_entries) return out;
  }
}

async function latestRun(engine: ObserveEngine, dagId: string): Promise<ApiDagRun | null> {
  const runs = await engine.listDagRuns({ dag_id: dagId, order_by: "-logical_date", limit: 1 });
  return runs.dag_runs[0] ?? null;
}

type Concern = Observation["concerns"][number];

/**
 * The log tail of each failed or retrying task (their last try). A log that is gone (404: the run
 * or try was removed meanwhile) becomes a warning concern naming the task, and a log line; any
 * other error (the database is down) is thrown: the caller gets a 503, not a silently empty tail.
 */
async function logTails(
  engine: ObserveEngine,
  logger: Logger,
  dagId: string,
  runId: string,
  tis: ApiTaskInstance[],
): Promise<{ tails: Record<string, string[]>; unread: Concern[] }> {
  const wanted = tis.filter((t) => (t.state === "failed" || t.state === "up_for_retry") && t.try_number > 0);
  const unread: Concern[] = [];
  const entries = await Promise.all(
    wanted.map(async (t) => {
      try {
        const chunk = await engine.getTaskLog(dagId, runId, t.task_id, t.try_number, { tail: LOG_TAIL_LINES });
        return [t.task_id, chunk.content.split("\n").filter((l) => l.length > 0)] as const;
      } catch (e) {
        if (!isSvcError(e) || statusOf(e.code).status !== 404) throw e;
        logger.warn({ dagId, runId, taskId: t.task_id, tryNumber: t.try_number, err: e.message }, "task log not found for observe");
        unread.push({ severity: "warning", task_id: t.task_id, message: `The log of ${t.task_id} try ${t.try_number} could not be read: ${e.message}` });
        return [t.task_id, [] as string[]] as const;
      }
    }),
  );
  return { tails: Object.fromEntries(entries), unread };
}

/**
 * Observe a DAG's run (the given one, else the latest by logical date): status, progress (skipped
 * tasks count as done), concerns with log lines, recommendations. 404 for an unknown DAG or run.
 */
export async function observeDag(engine: ObserveEngine, workflowUiUrl: string, dagId: string, runId?: string, logger: Logger = silentLogger()): Promise<Observation> {
  await engine.getDag(dagId);
  const run = runId ? await engine.getDagRun(dagId, runId) : await latestRun(engine, dagId);
  const tis = run ? await allTaskInstances(engine, dagId, run.dag_run_id) : [];
  const tasks: ObservedTask[] = tis.map((t) => ({ task_id: t.task_id, state: t.state, try_number: t.try_number, operator: t.operator ?? undefined }));
  const { tails, unread } = run ? await logTails(engine, logger, dagId, run.dag_run_id, tis) : { tails: {}, unread: [] };
  const o = observeRun({
    dagId,
    run: run ? { run_id: run.dag_run_id, state: run.state, start_date: run.start_date, end_date: run.end_date } : null,
    tasks,
    logTails: tails,
    workflowUiUrl,
  });
  return { dag_id: dagId, run_id: run?.dag_run_id ?? null, ...o, concerns: [...o.concerns, ...unread], workflow_ui_url: workflowUiUrlOf(workflowUiUrl, dagId) };
}
