import type { EngineApi } from "@svc/engine";
import { gridRuns, runTaskInstances } from "./grid-data";
import { html, page, seg, STATE_COLOURS } from "./html";

const NODE_W = 170;
const NODE_H = 30;
const GAP_X = 60;
const GAP_Y = 14;

/** Tasks in columns by depth (longest path from a root), edges as lines, borders in the latest run's task states: an SVG with no script. */
export async function renderGraph(api: EngineApi, dagId: string): Promise<string> {
  const [{ tasks }, [latest]] = await Promise.all([api.listTasks(dagId), gridRuns(api, dagId, 1)]);
  const states = new Map((latest ? await runTaskInstances(api, dagId, latest.dag_run_id) : []).map((t) => [t.task_id, t.state ?? "none"]));
  const ups = new Map(tasks.map((t) => [t.task_id, t.upstream_task_ids]));
  const depth = new Map<string, number>();
  const depthOf = (id: string, seen: Set<string> = new Set()): number => {
    const known = depth.get(id);
    if (known !== undefined) return known;
    if (seen.has(id)) return 0;
    seen.add(id);
    const d = Math.max(-1, ...(ups.get(id) ?? []).map((u) => depthOf(u, seen))) + 1;
    depth.set(id, d);
    return d;
  };
  const columns: string[][] = [];
  for (const t of tasks) (columns[depthOf(t.task_id)] ??= []).push(t.task_id);
  const pos = new Map<string, { x: number; y: number }>();
  columns.forEach((col, c) => col.forEach((id, r) => pos.set(id, { x: 10 + c * (NODE_W + GAP_X), y: 10 + r * (NODE_H + GAP_Y) })));
  const width = 20 + columns.length * (NODE_W + GAP_X);
  const height = 20 + Math.max(1, ...columns.map((c) => c.length)) * (NODE_H + GAP_Y);
  const edges = tasks.flatMap((t) =>
    t.upstream_task_ids.map((u) => {
      const a = pos.get(u)!;
      const b = pos.get(t.task_id)!;
      return html`<line x1="${a.x + NODE_W}" y1="${a.y + NODE_H / 2}" x2="${b.x}" y2="${b.y + NODE_H / 2}" stroke="#9aa5b1" marker-end="url(#arrow)"/>`;
    }),
  );
  const nodes = tasks.map((t) => {
    const p = pos.get(t.task_id)!;
    const label = t.task_id.length > 22 ? `${t.task_id.slice(0, 21)}…` : t.task_id;
    const state = states.get(t.task_id);
    const stroke = state && state !== "none" ? (STATE_COLOURS[state] ?? "#017cee") : "#017cee";
    return html`<g><title>${t.task_id} (${t.operator_name})${state ? ` ${state}` : ""}</title><rect x="${p.x}" y="${p.y}" width="${NODE_W}" height="${NODE_H}" rx="4" fill="#fff" stroke="${stroke}" stroke-width="${state && state !== "none" ? 3 : 1}"/><text x="${p.x + 8}" y="${p.y + 19}" font-size="12" font-family="ui-monospace,monospace">${label}</text></g>`;
  });
  const body = html`<p><a href="/dags/${seg(dagId)}/grid">Grid</a> · ${tasks.length} task(s)${latest ? html` · borders show run <span class="mono">${latest.dag_run_id}</span> (${latest.state})` : html``}</p>
<div class="card" style="overflow:auto"><svg role="img" aria-label="Task dependencies of ${dagId}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">
<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0L10,5L0,10z" fill="#9aa5b1"/></marker></defs>
${edges}${nodes}</svg></div>`;
  return page(`${dagId} graph`, body, { wide: true });
}

/** The DAG's file as loaded (read through the same source endpoint as the API). */
export async function renderCode(api: EngineApi, dagId: string): Promise<string> {
  const dag = await api.getDag(dagId);
  const { content } = await api.getDagSource(dag.file_token);
  const body = html`<p><a href="/dags/${seg(dagId)}/grid">Grid</a> · <span class="mono">${dag.fileloc}</span></p><pre class="log">${content}</pre>`;
  return page(`${dagId} code`, body, { wide: true });
}
