// Shared helpers of the svc UI pages: same-origin API calls (the browser's credentials go along) and pause switches.
"use strict";
window.svc = (function () {
  /** Call the REST API; resolves {ok, status, body, headers}; problem JSON bodies stay objects. */
  async function api(method, url, body, accept) {
    const init = { method, headers: { Accept: accept || "application/json" }, credentials: "same-origin" };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let res;
    try {
      res = await fetch(url, init);
    } catch (e) {
      return { ok: false, status: 0, body: { detail: "network error: " + e.message }, headers: new Headers() };
    }
    const type = res.headers.get("content-type") || "";
    const parsed = type.includes("json") ? await res.json().catch(() => null) : await res.text();
    return { ok: res.ok, status: res.status, body: parsed, headers: res.headers };
  }
  const seg = (s) => encodeURIComponent(String(s));
  /** Build an element: el("div", {class: "x"}, "text", child). Text is always set as text, never HTML. */
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children.flat()) if (c !== undefined && c !== null && c !== false) e.append(c instanceof Node ? c : String(c));
    return e;
  }
  const problemText = (r) => (r.body && typeof r.body === "object" && r.body.detail) || (typeof r.body === "string" && r.body) || "HTTP " + r.status;
  const fmtDate = (iso) => (iso ? iso.slice(0, 19).replace("T", " ") : "");
  function duration(start, end) {
    if (!start) return "";
    const s = ((end ? Date.parse(end) : Date.now()) - Date.parse(start)) / 1000;
    return s < 60 ? s.toFixed(1) + " s" : s < 3600 ? Math.floor(s / 60) + " min " + Math.round(s % 60) + " s" : (s / 3600).toFixed(1) + " h";
  }

  /** Pause switches: on = active. The API's answer sets the final position. */
  function wireSwitches(root) {
    root.querySelectorAll('button[role="switch"][data-dag-id]').forEach((sw) => {
      sw.addEventListener("click", async () => {
        const dagId = sw.dataset.dagId;
        const active = sw.getAttribute("aria-checked") === "true";
        sw.disabled = true;
        const r = await api("PATCH", "/api/v1/dags/" + seg(dagId), { is_paused: active });
        sw.disabled = false;
        if (r.ok) {
          sw.setAttribute("aria-checked", String(!r.body.is_paused));
          sw.title = r.body.is_paused ? "Paused: switch on to let it run" : "Active: switch off to pause";
        } else alert("Could not change " + dagId + ": " + problemText(r));
      });
    });
  }
  document.addEventListener("DOMContentLoaded", () => wireSwitches(document));
  return { api, seg, el, problemText, fmtDate, duration, wireSwitches };
})();
