import { topoOrder, type ApiTaskInstance, type EngineApi } from "@svc/engine";
import { html, page, seg, stateBadge, STATE_COLOURS } from "./html";

/** Runs shown in the grid (newest ones), like Airflow's default of 25. */
export const GRID_RUNS = 25;

/** Runs × tasks grid of one DAG; each cell links to that task's log. */
export async function renderGrid(api: EngineApi, dagId: string): Promise<string> {
  const dag = await api.getDagDetails(dagId);
  const tasks = await api.listTasks(dagId);
  const runs = (await api.listDagRuns({ dag_id: dagId, order_by: "-execution_date", limit: GRID_RUNS })).dag_runs.reverse();
  const tis = await Promise.all(runs.map((r) => api.listTaskInstances(dagId, r.dag_run_id, { limit: 100 })));
  const byRun = runs.map((_, i) => new Map<string, ApiTaskInstance>((tis[i]?.task_instances ?? []).map((t) => [t.task_id, t])));
  const order = topoOrder(tasks.tasks.map((t) => ({ task_id: t.task_id, depends_on: t.upstream_task_ids })));

  const head = runs.map((r) => html`<th title="${r.dag_run_id}">${stateBadge(r.state)}<br><small>${r.logical_date.slice(0, 19)}</small></th>`);
  const rows = order.map((taskId) => {
    const cells = runs.map((r, i) => {
      const ti = byRun[i]?.get(taskId);
      if (!ti) return html`<td></td>`;
      const state = ti.state ?? "none";
      const tryNo = Math.max(1, ti.try_number);
      const href = `/dags/${seg(dagId)}/runs/${seg(r.dag_run_id)}/tasks/${seg(taskId)}/logs/${tryNo}`;
      return html`<td><a href="${href}" title="${taskId} ${state} (try ${tryNo})"><span class="cell" data-state="${state}" style="background:${STATE_COLOURS[state] ?? "#ddd"}"></span></a></td>`;
    });
    return html`<tr><th>${taskId}</th>${cells}</tr>`;
  });
  const body = html`<p>${dag.description ?? ""}</p>
<p>${dag.is_paused ? "Paused" : "Active"} · schedule: ${dag.timetable_description ?? "manual"} · ${runs.length} most recent run(s)</p>
${runs.length ? html`<table><thead><tr><th>task</th>${head}</tr></thead><tbody>${rows}</tbody></table>` : html`<p>No DAG runs yet.</p>`}`;
  return page(`${dagId} grid`, body);
}
