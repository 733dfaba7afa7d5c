// DAG list: filter rows by text and tag without a round trip; switches, run dots and next run kept live over SSE.
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  const text = document.getElementById("dag-filter");
  const tag = document.getElementById("tag-filter");
  const count = document.getElementById("dag-count");
  if (!text || !tag) return;
  const rows = Array.from(document.querySelectorAll("tr[data-dag]"));
  const params = new URLSearchParams(location.search);
  if (params.get("q")) text.value = params.get("q");
  if (params.get("tag")) tag.value = params.get("tag");
  function apply() {
    const q = text.value.trim().toLowerCase();
    const t = tag.value;
    let shown = 0;
    for (const r of rows) {
      const ok = (!q || r.dataset.text.includes(q)) && (!t || r.dataset.tags.split(" ").includes(t));
      r.hidden = !ok;
      if (ok) shown++;
    }
    count.textContent = shown === rows.length ? rows.length + " DAG(s)" : shown + " of " + rows.length + " DAG(s)";
  }
  text.addEventListener("input", apply);
  tag.addEventListener("change", apply);
  apply();

  const { el, seg } = window.svc;
  const rowOf = (dagId) => rows.find((r) => r.dataset.dag === dagId);
  /** Dots oldest first, as the server renders them; `runs` comes newest first. */
  function dots(runs) {
    if (!runs.length) return [el("span", { class: "muted small" }, "no runs")];
    return runs.slice().reverse().map((r) => el("a", {
      class: "dot s-" + r.state, href: "/dags/" + seg(r.dag_id) + "/grid?run_id=" + seg(r.dag_run_id),
      title: r.dag_run_id + ": " + r.state, "aria-label": "run " + r.dag_run_id + " " + r.state,
    }));
  }
  function update(d) {
    const row = rowOf(d.dag_id);
    if (!row) return;
    const sw = row.querySelector('button[role="switch"]');
    // A switch being clicked right now gets its position from the API's answer instead.
    if (sw && !sw.disabled) {
      sw.setAttribute("aria-checked", String(!d.is_paused));
      sw.title = d.is_paused ? "Paused: switch on to let it run" : "Active: switch off to pause";
    }
    const cell = row.querySelector("td.runs");
    const sig = d.runs.map((r) => r.dag_run_id + " " + r.state).join("\n");
    if (cell && cell.dataset.sig !== sig) { cell.replaceChildren(...dots(d.runs)); cell.dataset.sig = sig; }
    const next = row.querySelector("td.next-run");
    if (next) next.textContent = d.next_run ? d.next_run.slice(0, 16).replace("T", " ") : "";
  }
  const es = new EventSource("/home/events");
  es.addEventListener("dags", (ev) => JSON.parse(ev.data).dags.forEach(update));
  window.addEventListener("pagehide", () => es.close());
});
