import { topoOrder, type ApiDagRun, type EngineApi } from "@svc/engine";
import { cellTitle, gridRuns, runView, type CellLoader, type GridCell } from "./grid-data";
import { html, page, Raw, seg } from "./html";

const STATES = ["queued", "scheduled", "running", "success", "failed", "up_for_retry", "up_for_reschedule", "upstream_failed", "skipped", "none"];

/** JSON for a <script type="application/json"> block: nothing in it can close the element. */
export const jsonForScript = (v: unknown): Raw => new Raw(JSON.stringify(v).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026"));

/** One square: a grid cell (the page moves focus between cells with the arrow keys, Enter opens it). */
function square(c: GridCell | undefined, runId: string, taskId: string): Raw {
  const state = c?.state ?? "none";
  const cell = c ?? { run_id: runId, task_id: taskId, state, try_number: 0, start_date: null, end_date: null, duration: null, child: null, host: null };
  // Cells of a role=grid table are grid cells; the page gives one of them the tab stop. The title
  // ("<task> <state> · try n · …") is also the cell's accessible name: no aria-label repeating its
  // start (a 200 × 25 grid is 5,000 squares, and every byte of each is parsed before the load event).
  return html`<td class="sq s-${state}" title="${cellTitle(cell)}"></td>`;
}

function runHeader(r: ApiDagRun): Raw {
  const when = r.logical_date.slice(5, 16).replace("T", " ");
  return html`<th><button type="button" class="runbar s-${r.state}" data-run="${r.dag_run_id}" aria-label="run ${r.dag_run_id} ${r.state}" title="${r.dag_run_id} · ${r.state} · ${when}"></button></th>`;
}

/** The runs × tasks table alone (also served as a fragment when a new run appears). */
export async function renderGridTable(api: EngineApi, cells: CellLoader, dagId: string): Promise<{ table: Raw; runs: ApiDagRun[]; order: string[] }> {
  const [tasks, runs] = await Promise.all([api.listTasks(dagId), gridRuns(api, dagId)]);
  const byKey = new Map(
    (
      await cells(
        dagId,
        runs.map((r) => r.dag_run_id),
      )
    ).map((c) => [`${c.run_id}\n${c.task_id}`, c]),
  );
  const order = topoOrder(tasks.tasks.map((t) => ({ task_id: t.task_id, depends_on: t.upstream_task_ids })));
  const rows = order.map(
    (taskId) =>
      html`<tr data-task="${taskId}"><th scope="row" class="mono small">${taskId}</th>${runs.map((r) => square(byKey.get(`${r.dag_run_id}\n${taskId}`), r.dag_run_id, taskId))}</tr>`,
  );
  const table = html`<table class="grid" id="grid" role="grid" aria-label="Task instances: runs as columns, tasks as rows"><thead><tr><th class="muted small">${runs.length} run(s)</th>${runs.map(runHeader)}</tr></thead><tbody>${rows}</tbody></table>`;
  return { table, runs, order };
}

/** Runs × tasks grid of one DAG with its run/task panel (details, actions, log), updated live over SSE. */
export async function renderGrid(api: EngineApi, cells: CellLoader, dagId: string): Promise<string> {
  const [dag, grid] = await Promise.all([api.getDagDetails(dagId), renderGridTable(api, cells, dagId)]);
  const runs = grid.runs.map(runView);

  const body = html`<div class="toolbar">
<button type="button" class="switch" role="switch" aria-checked="${String(!dag.is_paused)}" aria-label="Active: ${dag.dag_id}" data-dag-id="${dag.dag_id}"></button>
<span class="muted">${dag.description ?? ""}</span>
<span class="muted small">schedule: ${dag.timetable_description ?? "manual"}</span>
<a class="btn" href="/dags/${seg(dagId)}/trigger" aria-label="Trigger ${dagId}">▶ Trigger</a>
<a href="/dags/${seg(dagId)}/graph">Graph</a><a href="/dags/${seg(dagId)}/code">Code</a>
<span class="small muted" id="live-status" aria-live="polite"></span>
</div>
<div class="legend" aria-hidden="true">${STATES.map((s) => html`<span><span class="sw s-${s}"></span>${s}</span>`)}</div>
<div class="grid-wrap">
<div class="grid-scroll" id="grid-host">${grid.runs.length ? grid.table : html`<p class="muted" style="padding:1rem">No DAG runs yet.</p>`}</div>
<section class="panel card" id="panel" aria-live="polite"><p class="muted">Select a run (top bar) or a task square to see details and logs.</p></section>
</div>
<script type="application/json" id="grid-data">${jsonForScript({ dag_id: dagId, runs })}</script>`;
  return page(`${dagId}`, body, { scripts: ["common.js", "dags.js", "grid.js", "log-view.js"], wide: true });
}
