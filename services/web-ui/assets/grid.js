// Grid page: live squares over SSE, run details and actions, task details, clear with preview, logs.
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  const { api, seg, el, problemText, fmtDate, duration } = window.svc;
  const data = JSON.parse(document.getElementById("grid-data").textContent);
  const dagId = data.dag_id;
  const runs = new Map(data.runs.map((r) => [r.dag_run_id, r]));
  const host = document.getElementById("grid-host");
  const panel = document.getElementById("panel");
  const live = document.getElementById("live-status");
  const apiBase = "/api/v1/dags/" + seg(dagId);
  let shown = null; // {kind: "run"|"task", runId, taskId}
  let log = null;

  const q = (sel) => host.querySelector(sel);
  /** Column order of the runs as the table shows them. */
  const runOrder = () => Array.from(host.querySelectorAll("thead .runbar"), (b) => b.dataset.run);
  let order = runOrder();
  function sqOf(runId, taskId) {
    const row = q('tr[data-task="' + CSS.escape(taskId) + '"]');
    const i = order.indexOf(runId);
    return row && i >= 0 ? row.cells[i + 1] : null;
  }
  const whereIs = (td) => ({ runId: order[td.cellIndex - 1], taskId: td.parentElement.dataset.task });
  const badge = (state) => el("span", { class: "state s-" + (state || "none") }, state || "none");
  const kv = (pairs) => el("dl", { class: "kv" }, pairs.filter((p) => p[1] !== undefined && p[1] !== null && p[1] !== "").flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)]));

  function select(node) {
    host.querySelectorAll(".sel").forEach((n) => n.classList.remove("sel"));
    if (node) node.classList.add("sel");
  }
  function closeLog() { if (log) log.close(); log = null; }

  const gridLink = (dag, query, text) => el("a", { href: "/dags/" + seg(dag) + "/grid?" + new URLSearchParams(query).toString(), class: "mono" }, text);

  function triggeredBy(r) {
    const p = r.triggered_by;
    if (p) return el("span", {}, "task ", gridLink(p.dag_id, { run_id: p.dag_run_id, task_id: p.task_id }, p.dag_id + " / " + p.dag_run_id + " / " + p.task_id), " (try " + p.try_number + ")");
    const m = /^flow ([^:]+): ([\s\S]*)$/.exec(r.note || "");
    if (m) return "the assistant, for: “" + m[2] + "” (flow " + m[1] + ")";
    return r.run_type === "scheduled" ? "the scheduler" : r.external_trigger ? "an operator (" + r.run_type + ")" : r.run_type;
  }

  /** Dry run first: the list of what would be cleared, then a confirm button doing it for real. */
  async function clearWithPreview(box, url, body, what) {
    box.replaceChildren(el("p", { class: "muted" }, "Computing what " + what + " would clear…"));
    const r = await api("POST", url, Object.assign({}, body, { dry_run: true }));
    if (!r.ok) { box.replaceChildren(el("p", { class: "err" }, problemText(r))); return; }
    const tis = r.body.task_instances || [];
    const confirm = el("button", { type: "button", class: "btn danger" }, "Confirm clear (" + tis.length + ")");
    const cancel = el("button", { type: "button", class: "btn secondary", onclick: () => box.replaceChildren() }, "Cancel");
    confirm.addEventListener("click", async () => {
      confirm.disabled = true;
      const done = await api("POST", url, Object.assign({}, body, { dry_run: false }));
      box.replaceChildren(el("p", { class: done.ok ? "muted" : "err" }, done.ok ? "Cleared " + tis.length + " task instance(s); the scheduler will run them again." : problemText(done)));
    });
    box.replaceChildren(el("div", { class: "banner info", role: "region", "aria-label": "Clear preview" },
      el("strong", {}, tis.length ? "These " + tis.length + " task instance(s) will be cleared:" : "Nothing to clear."),
      el("ul", { id: "clear-preview" }, tis.map((t) => el("li", { class: "mono small" }, t.task_id + " · " + t.dag_run_id))),
      el("div", { class: "toolbar" }, tis.length ? confirm : null, cancel)));
  }

  function showRun(runId) {
    const r = runs.get(runId);
    if (!r) return;
    closeLog();
    shown = { kind: "run", runId };
    select(q('.runbar[data-run="' + CSS.escape(runId) + '"]'));
    const msg = el("div", { "aria-live": "polite" });
    const mark = (state) => async () => {
      const res = await api("PATCH", apiBase + "/dagRuns/" + seg(runId), { state });
      msg.replaceChildren(el("p", { class: res.ok ? "muted" : "err" }, res.ok ? "Run marked " + state + "." : problemText(res)));
      if (res.ok) { runs.set(runId, Object.assign(r, res.body)); updateRunBar(res.body); showRun(runId); }
    };
    panel.replaceChildren(
      el("h2", {}, "Run ", el("span", { class: "mono" }, runId), " ", badge(r.state)),
      kv([["State", r.state], ["Triggered by", triggeredBy(r)], ["Run type", r.run_type], ["Logical date", fmtDate(r.logical_date)],
        ["Started", fmtDate(r.start_date)], ["Ended", fmtDate(r.end_date)], ["Duration", duration(r.start_date, r.end_date)], ["Note", r.note]]),
      el("h2", {}, "Conf"), el("pre", { class: "json" }, JSON.stringify(r.conf || {}, null, 2)),
      el("div", { class: "toolbar" },
        el("button", { type: "button", class: "btn okay", onclick: mark("success") }, "Mark success"),
        el("button", { type: "button", class: "btn danger", onclick: mark("failed") }, "Mark failed"),
        el("button", { type: "button", class: "btn secondary", onclick: () => clearWithPreview(msg, apiBase + "/dagRuns/" + seg(runId) + "/clear", {}, "clearing the run") }, "Clear run…")),
      msg);
  }

  async function showTask(runId, taskId, tryNumber) {
    closeLog();
    shown = { kind: "task", runId, taskId };
    select(sqOf(runId, taskId));
    const res = await api("GET", apiBase + "/dagRuns/" + seg(runId) + "/taskInstances/" + seg(taskId));
    if (!res.ok) { panel.replaceChildren(el("p", { class: "err" }, problemText(res))); return; }
    const ti = res.body;
    const tries = Math.max(1, ti.try_number);
    const chosen = tryNumber && tryNumber <= tries ? tryNumber : tries;
    const logBox = el("div");
    const msg = el("div", { "aria-live": "polite" });
    // Runs this task triggered (trigger_dag_run), one per try that did.
    const triggered = (ti.triggered_dag_runs || []).map((r) =>
      el("li", {}, gridLink(r.dag_id, { run_id: r.dag_run_id }, r.dag_id + " / " + r.dag_run_id), " ", badge(r.state), " try " + r.try_number));
    const tryPick = el("select", { id: "try-pick", "aria-label": "Try" }, Array.from({ length: tries }, (_, i) => el("option", { value: i + 1, selected: i + 1 === chosen }, "try " + (i + 1))));
    tryPick.addEventListener("change", () => { closeLog(); log = window.svcLog.open(logBox, { dagId, runId, taskId, tryNumber: Number(tryPick.value) }); });
    panel.replaceChildren(
      el("h2", {}, el("span", { class: "mono" }, taskId), " ", badge(ti.state), " ", el("a", { href: "#", onclick: (e) => { e.preventDefault(); showRun(runId); }, class: "small" }, "run " + runId)),
      kv([["Try", ti.try_number + " of " + (ti.max_tries + 1)], ["Operator", ti.operator], ["Started", fmtDate(ti.start_date)], ["Ended", fmtDate(ti.end_date)],
        ["Duration", ti.duration === null ? "" : ti.duration.toFixed(1) + " s"], ["Host", ti.hostname]]),
      el("div", { class: "toolbar" },
        el("button", { type: "button", class: "btn secondary", onclick: () => clearWithPreview(msg, apiBase + "/clearTaskInstances",
          { task_ids: [taskId], dag_run_id: runId, include_downstream: true, only_failed: false }, "clearing " + taskId + " and what follows") }, "Clear task and downstream…"),
        tryPick),
      triggered.length ? el("h2", {}, "Triggered runs") : null,
      triggered.length ? el("ul", { id: "triggered-runs" }, triggered) : null,
      msg,
      el("h2", {}, "Log"), logBox);
    log = window.svcLog.open(logBox, { dagId, runId, taskId, tryNumber: chosen });
  }

  function updateRunBar(r) {
    const bar = q('.runbar[data-run="' + CSS.escape(r.dag_run_id) + '"]');
    if (!bar) return;
    bar.className = "runbar s-" + r.state + (bar.classList.contains("sel") ? " sel" : "");
    bar.setAttribute("aria-label", "run " + r.dag_run_id + " " + r.state);
    bar.title = r.dag_run_id + " · " + r.state;
  }

  async function reloadTable() {
    const r = await api("GET", "/dags/" + seg(dagId) + "/grid/table");
    if (!r.ok) return;
    // The grid's tab stop (and the keyboard focus, if it was on a square) stays on the same square
    // across the new table: someone moving through the grid with the arrow keys keeps their place.
    const stop = q('td.sq[tabindex="0"]');
    const kept = stop ? whereIs(stop) : null;
    const focused = !!stop && document.activeElement === stop;
    host.innerHTML = r.body.html; // rendered and escaped by the server
    order = runOrder();
    const back = kept && sqOf(kept.runId, kept.taskId);
    if (back && focused) focusCell(back);
    else if (back) back.tabIndex = 0;
    else firstCell();
    runs.clear();
    r.body.runs.forEach((x) => runs.set(x.dag_run_id, x));
    if (shown) select(shown.kind === "run" ? q('.runbar[data-run="' + CSS.escape(shown.runId) + '"]') : sqOf(shown.runId, shown.taskId));
  }

  function openCell(td) {
    const at = whereIs(td);
    if (at.runId && at.taskId) void showTask(at.runId, at.taskId);
  }
  host.addEventListener("click", (e) => {
    const bar = e.target.closest("button.runbar");
    if (bar) return showRun(bar.dataset.run);
    const td = e.target.closest("td.sq");
    if (td) { focusCell(td); openCell(td); }
  });
  // Arrow keys move between squares, Enter or Space opens one (one tab stop for the whole grid).
  host.addEventListener("keydown", (e) => {
    const td = e.target.closest && e.target.closest("td.sq");
    if (!td) return;
    const row = td.parentElement;
    let next = null;
    if (e.key === "ArrowRight") next = td.nextElementSibling;
    else if (e.key === "ArrowLeft") next = td.previousElementSibling;
    else if (e.key === "ArrowDown" && row.nextElementSibling) next = row.nextElementSibling.cells[td.cellIndex];
    else if (e.key === "ArrowUp" && row.previousElementSibling) next = row.previousElementSibling.cells[td.cellIndex];
    else if (e.key === "Enter" || e.key === " ") { e.preventDefault(); openCell(td); return; }
    if (next && next.classList.contains("sq")) { e.preventDefault(); focusCell(next); }
  });
  function focusCell(td) {
    host.querySelectorAll('td.sq[tabindex="0"]').forEach((c) => c.removeAttribute("tabindex"));
    td.tabIndex = 0;
    td.focus();
  }
  const firstCell = () => { const c = q("td.sq"); if (c) c.tabIndex = 0; };
  firstCell();

  const es = new EventSource("/dags/" + seg(dagId) + "/grid/events");
  es.addEventListener("open", () => { live.textContent = "● live"; });
  es.addEventListener("error", () => { live.textContent = "reconnecting…"; });
  es.addEventListener("ti", (ev) => {
    const c = JSON.parse(ev.data);
    const sq = sqOf(c.run_id, c.task_id);
    if (!sq) return;
    sq.className = "sq s-" + c.state + (sq.classList.contains("sel") ? " sel" : "");
    sq.title = c.title;
    if (shown && shown.kind === "task" && shown.runId === c.run_id && shown.taskId === c.task_id) {
      const b = panel.querySelector("h2 .state");
      if (b) { b.className = "state s-" + c.state; b.textContent = c.state; }
    }
  });
  es.addEventListener("run", (ev) => {
    const r = JSON.parse(ev.data);
    const known = runs.get(r.dag_run_id);
    if (!known) return;
    // A run that settled between rendering and the stream's start: its squares may be stale.
    if (r.initial && known.state !== r.state && r.state !== "queued" && r.state !== "running") void reloadTable();
    runs.set(r.dag_run_id, r);
    updateRunBar(r);
    if (shown && shown.kind === "run" && shown.runId === r.dag_run_id) showRun(r.dag_run_id);
  });
  es.addEventListener("runs", () => void reloadTable());
  window.addEventListener("pagehide", () => es.close());

  const params = new URLSearchParams(location.search);
  if (params.get("task_id") && params.get("run_id")) void showTask(params.get("run_id"), params.get("task_id"));
  else if (params.get("run_id")) showRun(params.get("run_id"));
  else if (data.runs.length) showRun(data.runs[data.runs.length - 1].dag_run_id);
});
