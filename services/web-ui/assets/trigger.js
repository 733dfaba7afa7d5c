// Trigger form: fields from the params schema, conf JSON kept in sync, inline messages, no run on invalid values.
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  const form = document.getElementById("trigger-form");
  if (!form) return;
  const { api, seg } = window.svc;
  const data = JSON.parse(document.getElementById("param-data").textContent);
  const conf = document.getElementById("conf-json");
  const confErr = document.getElementById("conf-err");
  const status = document.getElementById("form-status");
  const fields = Array.from(form.querySelectorAll("[data-param]"));
  const byName = new Map(fields.map((f) => [f.dataset.param, f]));
  const BAD_JSON = {};

  /** The field's value as the API will get it; undefined leaves the param out (its default applies). */
  function read(f) {
    const raw = f.value;
    const schema = data.schemas[f.dataset.param] || {};
    switch (f.dataset.kind) {
      case "boolean": return raw === "true";
      case "number": {
        const t = raw.trim();
        if (t === "") return undefined;
        return /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(t) ? Number(t) : t;
      }
      case "json":
        if (raw.trim() === "") return undefined;
        try { return JSON.parse(raw); } catch { return BAD_JSON; }
      case "enum": {
        if (raw === "") return undefined;
        const hit = (schema.enum || []).find((e) => (typeof e === "string" ? e : JSON.stringify(e)) === raw);
        return hit === undefined ? raw : hit;
      }
      default:
        return raw === "" && data.defaults[f.dataset.param] === null ? undefined : raw;
    }
  }
  function write(f, v) {
    f.value = v === undefined || v === null ? "" : typeof v === "string" ? v : f.dataset.kind === "boolean" ? String(v) : JSON.stringify(v);
  }
  function setError(name, message) {
    const box = form.querySelector('[data-field="' + CSS.escape(name) + '"]');
    const f = byName.get(name);
    if (!box || !f) return false;
    box.classList.toggle("invalid", Boolean(message));
    f.setAttribute("aria-invalid", message ? "true" : "false");
    document.getElementById(f.id + "-err").textContent = message ? name + ": " + message : "";
    return true;
  }
  function validate(f) {
    const v = read(f);
    const message = v === BAD_JSON ? "must be valid JSON" : v === undefined ? null : window.svcSchema.check(v, data.schemas[f.dataset.param]);
    setError(f.dataset.param, message);
    return message;
  }
  function currentConf() {
    const out = {};
    for (const f of fields) {
      const v = read(f);
      if (v !== undefined && v !== BAD_JSON) out[f.dataset.param] = v;
    }
    return out;
  }
  const syncConf = () => { conf.value = JSON.stringify(currentConf(), null, 2); confErr.textContent = ""; };

  fields.forEach((f) => f.addEventListener("input", () => { validate(f); syncConf(); status.textContent = ""; }));
  fields.forEach((f) => f.addEventListener("change", () => { validate(f); syncConf(); }));
  conf.addEventListener("input", () => {
    let obj;
    try { obj = JSON.parse(conf.value); } catch { confErr.textContent = "not valid JSON yet"; return; }
    if (!obj || typeof obj !== "object" || Array.isArray(obj)) { confErr.textContent = "must be a JSON object"; return; }
    confErr.textContent = "";
    for (const f of fields) { write(f, obj[f.dataset.param]); validate(f); }
  });
  syncConf();

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const bad = fields.filter((f) => validate(f) !== null);
    if (bad.length) {
      status.textContent = "Fix the highlighted value(s): nothing was triggered.";
      bad[0].focus();
      return;
    }
    const body = { conf: currentConf() };
    const runId = document.getElementById("run-id").value.trim();
    const note = document.getElementById("run-note").value.trim();
    if (runId) body.dag_run_id = runId;
    if (note) body.note = note;
    status.textContent = "Triggering…";
    const r = await api("POST", "/api/v1/dags/" + seg(data.dag_id) + "/dagRuns", body);
    if (r.ok) {
      location.href = "/dags/" + seg(data.dag_id) + "/grid?run_id=" + seg(r.body.dag_run_id);
      return;
    }
    const problems = (r.body && r.body.fields) || [];
    let shown = 0;
    for (const p of problems) if (setError(p.field, p.message)) shown++;
    if (r.body && r.body.field === "dag_run_id") document.getElementById("run-id-err").textContent = window.svc.problemText(r);
    status.textContent = (shown ? "The API refused the value(s) marked above: " : "Not triggered: ") + window.svc.problemText(r);
  });
});
