import type { Db } from "@svc/db";
import type { ApiDag, ApiImportError, EngineApi } from "@svc/engine";
import { DOT_RUNS, nextRunOf, recentRunsFromDb, type RunDot } from "./home-query";
import { html, page, seg, type Raw } from "./html";

const shortDate = (iso: string | null | undefined): string => (iso ? iso.slice(0, 16).replace("T", " ") : "");

function runDots(runs: RunDot[]): Raw {
  if (!runs.length) return html`<span class="muted small">no runs</span>`;
  return html`${[...runs].reverse().map((r) => html`<a class="dot s-${r.state}" href="/dags/${seg(r.dag_id)}/grid?run_id=${seg(r.dag_run_id)}" title="${r.dag_run_id}: ${r.state}" aria-label="run ${r.dag_run_id} ${r.state}"></a>`)}`;
}

function dagRow(d: ApiDag, runs: RunDot[], now: Date): Raw {
  const tags = d.tags.map((t) => t.name);
  return html`<tr data-dag="${d.dag_id}" data-tags="${tags.join(" ")}" data-text="${`${d.dag_id} ${d.description ?? ""}`.toLowerCase()}">
<td><button type="button" class="switch" role="switch" aria-checked="${String(!d.is_paused)}" aria-label="Active: ${d.dag_id}" title="${d.is_paused ? "Paused: switch on to let it run" : "Active: switch off to pause"}" data-dag-id="${d.dag_id}"></button></td>
<td><a href="/dags/${seg(d.dag_id)}/grid"><strong>${d.dag_id}</strong></a>${d.has_import_errors ? html` <span class="state s-failed" title="the DAG file has an import error">import error</span>` : html``}
<div class="muted small">${d.description ?? ""}</div><div>${tags.map((t) => html`<span class="tag">${t}</span>`)}</div></td>
<td class="opt">${d.owners.join(", ")}</td>
<td class="opt mono small">${d.schedule_interval?.value ?? "manual"}</td>
<td class="runs">${runDots(runs)}</td>
<td class="opt small next-run">${shortDate(d.next_dagrun ?? nextRunOf(d.schedule_interval?.value, d.is_paused, now))}</td>
<td><a class="btn secondary" href="/dags/${seg(d.dag_id)}/trigger" aria-label="Trigger ${d.dag_id}" title="Trigger ${d.dag_id}">▶ Trigger</a></td>
</tr>`;
}

/** The banner listing DAG files that failed to load (file and message). */
export function importErrorBanner(errors: ApiImportError[], total: number): Raw {
  if (!total) return html``;
  return html`<section class="banner error" role="alert" aria-label="Import errors"><strong>${total} DAG file(s) failed to load</strong>
${errors.map((e) => html`<div><span class="mono">${e.filename}</span><pre>${e.stack_trace}</pre></div>`)}</section>`;
}

/** The ask box: a sentence to the assistant; the plan and its Approve button appear below it. */
const askBox = html`<section class="card" aria-label="Ask the assistant"><form id="ask-form" class="ask" autocomplete="off">
<input type="text" id="ask-input" name="intent" aria-label="Ask svc: what should run?" placeholder="Ask svc: e.g. stand up a private CA for the lab" required maxlength="2000">
<button class="btn" type="submit">Ask</button></form><div id="ask-result" aria-live="polite"></div></section>`;

/** Every active DAG, page by page (the API caps a page at its maximum page limit). */
async function allDags(api: EngineApi): Promise<{ dags: ApiDag[]; total_entries: number }> {
  const first = await api.listDags({ limit: 1000, only_active: true });
  const dags = [...first.dags];
  while (first.dags.length && dags.length < first.total_entries) {
    const next = await api.listDags({ limit: 1000, offset: dags.length, only_active: true });
    if (!next.dags.length) break;
    dags.push(...next.dags);
  }
  return { dags, total_entries: first.total_entries };
}

/** The DAG list: pause switches, triggers, recent runs, filters, import-errors banner and the ask box (kept live by /home/events). */
export async function renderHome(api: EngineApi, db?: Db): Promise<string> {
  const [dags, errors] = await Promise.all([allDags(api), api.listImportErrors({ limit: 100 })]);
  const ids = dags.dags.map((d) => d.dag_id);
  const now = new Date();
  const recent = db
    ? await recentRunsFromDb(db, ids, DOT_RUNS)
    : new Map(await Promise.all(ids.map(async (id) => [id, (await api.listDagRuns({ dag_id: id, order_by: "-execution_date", limit: DOT_RUNS })).dag_runs] as const)));
  const allTags = [...new Set(dags.dags.flatMap((d) => d.tags.map((t) => t.name)))].sort();
  const body = html`${importErrorBanner(errors.import_errors, errors.total_entries)}
${askBox}
<div class="toolbar" role="search">
<input type="search" id="dag-filter" aria-label="Filter DAGs by id or description" placeholder="Filter DAGs…">
<select id="tag-filter" aria-label="Filter by tag"><option value="">All tags</option>${allTags.map((t) => html`<option>${t}</option>`)}</select>
<span class="muted small" id="dag-count">${dags.total_entries} DAG(s)</span>
<span class="muted small">Import errors: <strong id="import-error-count">${errors.total_entries}</strong></span>
</div>
<table class="dags"><thead><tr><th>Active</th><th>DAG</th><th class="opt">Owner</th><th class="opt">Schedule</th><th>Recent runs</th><th class="opt">Next run</th><th>Actions</th></tr></thead>
<tbody>${dags.dags.map((d) => dagRow(d, recent.get(d.dag_id) ?? [], now))}</tbody></table>
${dags.dags.length ? html`` : html`<p class="muted">No DAGs yet: drop a YAML file into the DAG folder.</p>`}`;
  return page("DAGs", body, { scripts: ["common.js", "dags.js", "ask.js"] });
}
