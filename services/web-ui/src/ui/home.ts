import type { EngineApi } from "@svc/engine";
import { html, page, seg, stateBadge } from "./html";

/** The DAG list: paused state, schedule, last run state, and the import errors of the DAG folder. */
export async function renderHome(api: EngineApi): Promise<string> {
  const dags = await api.listDags({ limit: 100, only_active: true });
  const errors = await api.listImportErrors({ limit: 100 });
  const lastRuns = await Promise.all(dags.dags.map((d) => api.listDagRuns({ dag_id: d.dag_id, order_by: "-execution_date", limit: 1 })));
  const rows = dags.dags.map((d, i) => {
    const last = lastRuns[i]?.dag_runs[0];
    return html`<tr>
<td><a href="/dags/${seg(d.dag_id)}/grid">${d.dag_id}</a></td>
<td>${d.is_paused ? "paused" : "active"}</td>
<td>${d.schedule_interval?.value ?? "manual"}</td>
<td>${d.tags.map((t) => t.name).join(", ")}</td>
<td>${last ? stateBadge(last.state) : "no runs"}</td>
<td>${last ? last.dag_run_id : ""}</td>
</tr>`;
  });
  const errorList = errors.import_errors.map((e) => html`<details><summary>${e.filename}</summary><pre>${e.stack_trace}</pre></details>`);
  const body = html`<p>${dags.total_entries} DAG(s). Import errors: <strong id="import-error-count">${errors.total_entries}</strong></p>
<table><thead><tr><th>DAG</th><th>Paused</th><th>Schedule</th><th>Tags</th><th>Last run</th><th>Run id</th></tr></thead>
<tbody>${rows}</tbody></table>
${errors.total_entries ? html`<h2>Import errors</h2>${errorList}` : html``}`;
  return page("DAGs", body);
}
