// DAG list: filter rows by text and tag without a round trip.
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
});
