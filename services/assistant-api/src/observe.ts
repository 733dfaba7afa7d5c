import { observeRun, type ObservedTask } from "@svc/assistant";
import type { ApiDagRun, ApiTaskInstance, EngineApi } from "@svc/engine";
import { workflowUiUrlOf } from "@svc/flows";
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

/** The log tail of each failed or retrying task (their last try). */
async function logTails(engine: ObserveEngine, dagId: string, runId: string, tis: ApiTaskInstance[]): Promise<Record<string, string[]>> {
  const wanted = tis.filter((t) => (t.state === "failed" || t.state === "up_for_retry") && t.try_number > 0);
  const entries = await Promise.all(
    wanted.map(async (t) => {
      const chunk = await engine.getTaskLog(dagId, runId, t.task_id, t.try_number, { tail: LOG_TAIL_LINES }).catch(() => null);
      return [t.task_id, chunk ? chunk.content.split("\n").filter((l) => l.length > 0) : []] as const;
    }),
  );
  return Object.fromEntries(entries);
}

/**
 * Observe a DAG's run (the given one, else the latest by logical date): status, progress (skipped
 * tasks count as done), concerns with log lines, recommendations. 404 for an unknown DAG or run.
 */
export async function observeDag(engine: ObserveEngine, workflowUiUrl: string, dagId: string, runId?: string): Promise<Observation> {
  await engine.getDag(dagId);
  const run = runId ? await engine.getDagRun(dagId, runId) : await latestRun(engine, dagId);
  const tis = run ? await allTaskInstances(engine, dagId, run.dag_run_id) : [];
  const tasks: ObservedTask[] = tis.map((t) => ({ task_id: t.task_id, state: t.state, try_number: t.try_number, operator: t.operator ?? undefined }));
  const tails = run ? await logTails(engine, dagId, run.dag_run_id, tis) : {};
  const o = observeRun({
    dagId,
    run: run ? { run_id: run.dag_run_id, state: run.state, start_date: run.start_date, end_date: run.end_date } : null,
    tasks,
    logTails: tails,
    workflowUiUrl,
  });
  return { dag_id: dagId, run_id: run?.dag_run_id ?? null, ...o, workflow_ui_url: workflowUiUrlOf(workflowUiUrl, dagId) };
}
