import type { ApiDagDetail, EngineApi } from "@svc/engine";
import { jsonForScript } from "./grid";
import { html, page, seg, type Raw } from "./html";

type Param = ApiDagDetail["params"][string];

const typesOf = (schema: Record<string, unknown>): string[] => {
  const t = schema.type;
  return Array.isArray(t) ? t.map(String) : typeof t === "string" ? [t] : [];
};

/** How a param's value is shown in its field (the client parses it back with the same rules). */
export function fieldKind(schema: Record<string, unknown>): "enum" | "boolean" | "number" | "json" | "text" {
  const types = typesOf(schema);
  if (Array.isArray(schema.enum)) return "enum";
  if (types.includes("boolean") && types.length === 1) return "boolean";
  if (types.some((t) => t === "integer" || t === "number") && !types.includes("string")) return "number";
  if (types.some((t) => t === "array" || t === "object")) return "json";
  return "text";
}

const display = (v: unknown): string => (v === null || v === undefined ? "" : typeof v === "string" ? v : JSON.stringify(v));

function field(name: string, p: Param): Raw {
  const id = `param-${name}`;
  const kind = fieldKind(p.schema);
  const common = html`id="${id}" name="${name}" data-param="${name}" data-kind="${kind}" aria-describedby="${id}-desc ${id}-err"`;
  let input: Raw;
  if (kind === "enum") {
    const options = (p.schema.enum as unknown[]).map(
      (o) => html`<option value="${display(o)}"${display(o) === display(p.value) ? html` selected` : html``}>${display(o)}</option>`,
    );
    input = html`<select ${common}>${p.value === null ? html`<option value=""></option>` : html``}${options}</select>`;
  } else if (kind === "boolean") {
    input = html`<select ${common}><option value="true"${p.value === true ? html` selected` : html``}>true</option><option value="false"${p.value === true ? html`` : html` selected`}>false</option></select>`;
  } else if (kind === "json") {
    input = html`<textarea ${common} rows="2" class="mono" spellcheck="false">${display(p.value)}</textarea>`;
  } else {
    input = html`<input type="text" ${common} value="${display(p.value)}"${kind === "number" ? html` inputmode="numeric"` : html``} spellcheck="false">`;
  }
  const hint = [typesOf(p.schema).join(" | "), kind === "json" ? "JSON" : ""].filter(Boolean).join(" · ");
  return html`<div class="field" data-field="${name}"><label for="${id}">${name}</label>
<div class="desc" id="${id}-desc">${p.description ?? ""}${hint ? html` <span class="mono small">(${hint})</span>` : html``}</div>
${input}<div class="err" id="${id}-err" role="alert"></div></div>`;
}

/** The trigger form generated from the DAG's params schema, with the conf as JSON kept in sync. */
export async function renderTriggerPage(api: EngineApi, dagId: string): Promise<string> {
  const dag = await api.getDagDetails(dagId);
  const params = Object.entries(dag.params);
  const schemas = Object.fromEntries(params.map(([n, p]) => [n, p.schema]));
  const defaults = Object.fromEntries(params.map(([n, p]) => [n, p.value]));
  const body = html`<p class="muted">${dag.description ?? ""} <a href="/dags/${seg(dagId)}/grid">Grid</a></p>
${dag.has_import_errors ? html`<div class="banner error" role="alert">The DAG file has an import error: fix it before triggering.</div>` : html``}
<form id="trigger-form" class="two" novalidate data-dag-id="${dagId}">
<div class="card"><h2>Parameters</h2>
${params.length ? params.map(([n, p]) => field(n, p)) : html`<p class="muted">This DAG takes no parameters.</p>`}
<details><summary>Run options</summary>
<div class="field"><label for="run-id">Run id</label><div class="desc" id="run-id-desc">optional; default manual__&lt;date&gt;</div><input type="text" id="run-id" name="dag_run_id" aria-describedby="run-id-desc run-id-err"><div class="err" id="run-id-err" role="alert"></div></div>
<div class="field"><label for="run-note">Note</label><input type="text" id="run-note" name="note"></div>
</details>
<div class="toolbar"><button class="btn" type="submit">Trigger</button><a class="btn secondary" href="/dags/${seg(dagId)}/grid">Cancel</a><span id="form-status" class="err" role="status"></span></div>
</div>
<div class="card"><h2><label for="conf-json">Configuration JSON</label></h2>
<textarea id="conf-json" class="mono" rows="18" spellcheck="false" aria-describedby="conf-err"></textarea><div class="err" id="conf-err" role="alert"></div></div>
</form>
<script type="application/json" id="param-data">${jsonForScript({ dag_id: dagId, schemas, defaults })}</script>`;
  return page(`Trigger ${dagId}`, body, { scripts: ["common.js", "json-schema.js", "trigger.js"] });
}
