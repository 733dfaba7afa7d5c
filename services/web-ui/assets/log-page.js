// Stand-alone log page: opens the shared log viewer on the try named by the page.
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  const host = document.getElementById("log-host");
  const d = host.dataset;
  window.svcLog.open(host, { dagId: d.dagId, runId: d.runId, taskId: d.taskId, tryNumber: Number(d.try) });
});
