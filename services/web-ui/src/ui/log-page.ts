import type { EngineApi } from "@svc/engine";
import { html, page, seg, stateBadge } from "./html";

/** One try's full log; refreshes itself while the try can still write lines. */
export async function renderLogPage(api: EngineApi, dagId: string, runId: string, taskId: string, tryNumber: number): Promise<string> {
  const ti = await api.getTaskInstance(dagId, runId, taskId);
  const log = await api.getTaskLog(dagId, runId, taskId, tryNumber, { fullContent: true });
  const tries = Array.from({ length: Math.max(1, ti.try_number) }, (_, i) => i + 1);
  const base = `/dags/${seg(dagId)}/runs/${seg(runId)}/tasks/${seg(taskId)}/logs/`;
  const body = html`<p><a href="/dags/${seg(dagId)}/grid">${dagId}</a> · run ${runId} · ${stateBadge(ti.state)} · tries:
${tries.map((n) => (n === tryNumber ? html` <strong>${n}</strong>` : html` <a href="${base}${n}">${n}</a>`))}</p>
<pre id="log">${log.content || "(no log lines)"}</pre>`;
  return page(`${taskId} log (try ${tryNumber})`, body, log.finished ? {} : { refreshSeconds: 2 });
}
