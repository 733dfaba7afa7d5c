// Ask box: a sentence goes to the assistant; the plan (DAG, params, questions) comes back with an
// Approve button; after approval the page follows the run in its grid.
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  const form = document.getElementById("ask-form");
  if (!form) return;
  const { api, seg, el, problemText } = window.svc;
  const input = document.getElementById("ask-input");
  const out = document.getElementById("ask-result");
  const WORKING = new Set(["pending", "planning", "approved"]);
  let pollTimer = null;

  const badge = (s) => el("span", { class: "state s-" + ({ completed: "success", failed: "failed", rejected: "failed", in_progress: "running", awaiting_approval: "scheduled", needs_input: "up_for_retry" }[s] || "none") }, s);
  /** The route status (ready | needs_input | rejected) when the assistant reports one. */
  const routeOf = (f) => f.route_status || (f.route && f.route.status) || (f.router && f.router.status) || null;
  const gridUrl = (f) => "/dags/" + seg(f.dag_id) + "/grid" + (f.run_id ? "?run_id=" + seg(f.run_id) : "");

  function render(f, note) {
    const parts = [el("h2", {}, "Plan ", badge(f.status))];
    const route = routeOf(f);
    const facts = [["Intent", f.intent], ["Route", route], ["DAG", f.dag_id ? el("a", { href: gridUrl(f) }, f.dag_id) : "none chosen"], ["Summary", f.summary], ["Placement", f.placement && f.placement.summary], ["Error", f.error_message]];
    parts.push(el("dl", { class: "kv", id: "ask-plan" }, facts.filter((x) => x[1]).flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)])));
    const params = Object.entries(f.params || {});
    if (params.length) {
      parts.push(el("table", { "aria-label": "Resolved parameters" }, el("thead", {}, el("tr", {}, el("th", {}, "param"), el("th", {}, "value"))),
        el("tbody", {}, params.map(([k, v]) => el("tr", {}, el("td", { class: "mono" }, k), el("td", { class: "mono" }, typeof v === "string" ? v : JSON.stringify(v)))))));
    }
    if (f.status === "needs_input" || (f.missing_params || []).length) {
      const requests = f.input_requests || [];
      parts.push(el("div", { class: "banner info", role: "region", "aria-label": "Questions" },
        el("strong", {}, f.question || "The assistant needs: " + ((f.missing_params || []).join(", ") || "more detail")),
        requests.length
          ? el("ul", {}, requests.map((q) => el("li", {}, el("span", { class: "mono" }, q.field), ": " + (q.question && q.question !== f.question ? q.question : q.rule || "") + (q.given ? " (given: " + q.given + ")" : ""))))
          : el("ul", {}, (f.next_steps || []).map((s) => el("li", {}, s))),
        requests.length ? answerForm(f, requests) : el("p", { class: "small muted" }, "Add the missing values to your sentence and ask again.")));
    }
    for (const w of f.warnings || []) parts.push(el("p", { class: "small muted" }, "⚠ " + w));
    if (f.status === "awaiting_approval") {
      const approve = el("button", { type: "button", class: "btn okay" }, "Approve");
      approve.addEventListener("click", async () => {
        approve.disabled = true;
        const r = await api("POST", "/ui/ask/flows/" + seg(f.flow_id) + "/approve", {});
        if (!r.ok) { render(f, problemText(r)); return; }
        follow(r.body);
      });
      parts.push(el("div", { class: "toolbar" }, approve, el("span", { class: "small muted" }, "Runs " + f.dag_id + " with the values above.")));
    }
    if (f.run_id) parts.push(el("p", {}, el("a", { class: "btn", href: gridUrl(f) }, "Follow the run in the grid")));
    if (note) parts.push(el("p", { class: "err" }, note));
    out.replaceChildren(el("div", { class: "card" }, parts));
  }

  /** One labelled field per question; the answers go back to the same flow, which plans again. */
  function answerForm(f, requests) {
    const inputs = requests.map((q) => el("input", { type: "text", id: "answer-" + q.field, name: q.field, value: q.given || "", required: true, maxlength: "500" }));
    const form = el("form", { class: "toolbar", "aria-label": "Answer the assistant" },
      requests.map((q, i) => el("label", { for: "answer-" + q.field }, el("span", { class: "mono" }, q.field), " ", inputs[i])),
      el("button", { type: "submit", class: "btn" }, "Answer"));
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const params = Object.fromEntries(inputs.map((i) => [i.name, i.value.trim()]));
      const r = await api("POST", "/ui/ask/flows/" + seg(f.flow_id) + "/answer", { params });
      if (r.ok) follow(r.body);
      else render(f, problemText(r));
    });
    return form;
  }

  /** Poll the flow while the assistant works on it; once a run exists, go to its grid. */
  function follow(f) {
    clearTimeout(pollTimer);
    render(f);
    if (f.run_id && f.dag_id && f.status !== "awaiting_approval") { location.href = gridUrl(f); return; }
    if (!WORKING.has(f.status) && f.status !== "in_progress") return;
    pollTimer = setTimeout(async () => {
      const r = await api("GET", "/ui/ask/flows/" + seg(f.flow_id));
      if (r.ok) follow(r.body);
      else render(f, problemText(r));
    }, 700);
  }

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const intent = input.value.trim();
    if (!intent) return;
    clearTimeout(pollTimer);
    out.replaceChildren(el("p", { class: "muted" }, "Planning…"));
    const r = await api("POST", "/ui/ask", { intent });
    if (r.ok) { follow(r.body); return; }
    if (r.body && r.body.flow_id) {
      const f = await api("GET", "/ui/ask/flows/" + seg(r.body.flow_id));
      if (f.ok) { render(f.body, problemText(r)); return; }
    }
    out.replaceChildren(el("p", { class: "err", role: "alert" }, problemText(r)));
  });
});
