// Task log viewer: the last lines first, earlier lines on demand, follow mode while the try runs.
// Text is appended as text nodes, so a huge log never becomes one giant string or HTML parse.
"use strict";
window.svcLog = (function () {
  const FIRST_TAIL = 1000;
  const MAX_TAIL = 100000;
  /** Characters kept on the page while following; older text is dropped from the top. */
  const MAX_CHARS = 4000000;
  const FOLLOW_MS = 1000;

  function open(host, where) {
    const { api, seg, el } = window.svc;
    const base = "/api/v1/dags/" + seg(where.dagId) + "/dagRuns/" + seg(where.runId) + "/taskInstances/" + seg(where.taskId) + "/logs/" + where.tryNumber;
    let tail = FIRST_TAIL;
    let token = null;
    let finished = false;
    let timer = null;
    let closed = false;
    let shown = 0;
    const follow = el("input", { type: "checkbox", id: "log-follow", checked: true });
    const more = el("button", { type: "button", class: "btn secondary", hidden: true }, "Load earlier lines");
    const info = el("span", { class: "muted small", "aria-live": "polite" });
    const pre = el("pre", { class: "log", id: "log", tabindex: "0", "aria-label": "Log of " + where.taskId + " try " + where.tryNumber });
    host.replaceChildren(el("div", { class: "toolbar" }, el("label", { for: "log-follow" }, follow, " Follow"), more, info), pre);

    const atBottom = () => pre.scrollHeight - pre.scrollTop - pre.clientHeight < 40;
    async function loadTail() {
      const r = await api("GET", base + "?tail=" + tail);
      if (closed) return;
      if (!r.ok) { info.textContent = window.svc.problemText(r); return; }
      token = r.body.continuation_token;
      finished = r.headers.get("X-Log-Finished") === "true";
      const lines = r.body.content ? r.body.content.split("\n").length - 1 : 0;
      pre.textContent = r.body.content || "(no log lines yet)";
      shown = pre.textContent.length;
      more.hidden = lines < tail || tail >= MAX_TAIL;
      info.textContent = (more.hidden ? lines + " line(s)" : "last " + lines + " lines") + (finished ? " · finished" : " · running");
      pre.scrollTop = pre.scrollHeight;
      schedule();
    }
    async function poll() {
      timer = null;
      if (closed || finished || !follow.checked) return;
      const r = await api("GET", base + "?token=" + encodeURIComponent(token));
      if (closed) return;
      if (r.ok) {
        const stick = atBottom();
        token = r.body.continuation_token;
        finished = r.headers.get("X-Log-Finished") === "true";
        if (r.body.content) {
          if (pre.textContent === "(no log lines yet)") pre.textContent = "";
          pre.append(document.createTextNode(r.body.content));
          shown += r.body.content.length;
          while (shown > MAX_CHARS && pre.childNodes.length > 1) {
            shown -= pre.firstChild.textContent.length;
            pre.firstChild.remove();
            more.hidden = true;
            info.textContent = "following; earliest lines dropped from the page";
          }
          if (stick) pre.scrollTop = pre.scrollHeight;
        }
        if (finished) info.textContent = info.textContent.replace("running", "finished");
      }
      schedule();
    }
    function schedule() {
      if (!closed && !finished && follow.checked && !timer) timer = setTimeout(poll, FOLLOW_MS);
    }
    follow.addEventListener("change", schedule);
    more.addEventListener("click", () => { tail = Math.min(MAX_TAIL, tail * 10); clearTimeout(timer); timer = null; void loadTail(); });
    void loadTail();
    return { close() { closed = true; clearTimeout(timer); } };
  }
  return { open };
})();
