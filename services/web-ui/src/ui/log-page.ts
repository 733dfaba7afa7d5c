import type { EngineApi } from "@svc/engine";
import { html, page, seg, stateBadge } from "./html";

const TAIL_LINES = 1000;

/** One try's log on its own page: the last lines first, earlier ones on demand, followed while it runs. */
export async function renderLogPage(api: EngineApi, dagId: string, runId: string, taskId: string, tryNumber: number): Promise<string> {
  const ti = await api.getTaskInstance(dagId, runId, taskId);
  // The last lines are in the page itself (readable without scripts); the viewer then takes over.
  const tail = await api.getTaskLog(dagId, runId, taskId, tryNumber, { tail: TAIL_LINES });
  const tries = Array.from({ length: Math.max(1, ti.try_number) }, (_, i) => i + 1);
  const base = `/dags/${seg(dagId)}/runs/${seg(runId)}/tasks/${seg(taskId)}/logs/`;
  const body = html`<p><a href="/dags/${seg(dagId)}/grid?run_id=${seg(runId)}">${dagId}</a> · run ${runId} · ${stateBadge(ti.state)} · tries:
${tries.map((n) => (n === tryNumber ? html` <strong>${n}</strong>` : html` <a href="${base}${n}">${n}</a>`))}</p>
<div class="card" id="log-host" data-dag-id="${dagId}" data-run-id="${runId}" data-task-id="${taskId}" data-try="${tryNumber}"><pre class="log" id="log">${tail.content || "(no log lines yet)"}</pre></div>`;
  return page(`${taskId} log (try ${tryNumber})`, body, { scripts: ["common.js", "log-view.js", "log-page.js"], wide: true });
}
