/**
 * The pages people wait for, warm, to the load event in Chromium: the DAG list (31 DAGs) and the
 * grid of a 200-task DAG as the page shows it (its last 25 runs: 5,000 squares). The real web UI app
 * (with credentials, as deployed) is served over loopback; Debian's chromium runs headless without
 * sandbox and with background networking off (the browser tests' flags). Each page is loaded twice
 * first (compiled code, the stylesheet and scripts cached), then ROUNDS times; the time is the
 * page's own navigation timing (navigation start to the load event), not the driver's round trips.
 *
 *   pnpm bench:web-ui [--trace DIR] [--all-active]   (BENCH_TASKS=40 for a smaller grid)
 *   --trace DIR writes a Chromium trace of one load of each grid row (open it in DevTools' Performance panel)
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import os from "node:os";
import path from "node:path";
import { createEngineApi, syncDagFolder } from "@svc/engine";
import { defaultOperators } from "@svc/operators";
import { createTestDb, freePort, recordingNotifier } from "@svc/testing";
import { createWebUiApp } from "../services/web-ui/src/app";
import { AUTH } from "../services/web-ui/test/helpers";
import { launchChromium } from "../services/web-ui/test/ui/ui-stack";
import { jsonLine } from "./system/report";
import { benchArgs } from "./lib/args";

const USAGE = `Usage: pnpm bench:web-ui [--trace DIR] [--all-active]   (BENCH_TASKS=40 for a smaller grid)
The DAG list and a 200-task grid, warm, to the load event in headless Chromium.`;

const TASKS = Number(process.env.BENCH_TASKS ?? 200);
const RUNS = 25;
const WARM_UP = 2;
const ROUNDS = 15;
const TARGET_MS = 300;
const STATES = ["success", "success", "success", "failed", "running", "queued", "up_for_retry", "skipped", "upstream_failed", "scheduled"];
const values = benchArgs("bench:web-ui", USAGE, { trace: { type: "string" }, "all-active": { type: "boolean", default: false } });

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const BASIC = `Basic ${Buffer.from(`${AUTH.adminUser}:${AUTH.adminPassword}`).toString("base64")}`;

/** What the page's navigation timing says (ms from navigation start). */
interface Nav {
  responseEnd: number;
  domInteractive: number;
  domContentLoaded: number;
  load: number;
  /** The driver's time for page.goto (for comparison). */
  wall?: number;
}

async function main(): Promise<void> {
  const tdb = await createTestDb("benchui");
  const dagsDir = mkdtempSync(path.join(os.tmpdir(), "svc-bench-ui-"));
  const tasks = Array.from(
    { length: TASKS },
    (_, i) => `  - task_id: step_${String(i).padStart(3, "0")}\n    operator: noop\n${i ? `    depends_on: [step_${String(Math.floor((i - 1) / 2)).padStart(3, "0")}]\n` : ""}`,
  );
  writeFileSync(path.join(dagsDir, "big.yaml"), `dag_id: big\ndescription: ${TASKS} tasks\ntags: [bench]\ntasks:\n${tasks.join("")}`);
  for (let d = 0; d < 30; d++) writeFileSync(path.join(dagsDir, `small_${d}.yaml`), `dag_id: small_${d}\ntags: [t${d % 5}]\ntasks:\n  - task_id: a\n    operator: noop\n`);
  const catalog = defaultOperators();
  await syncDagFolder({ db: tdb.db, dagsDir, catalog });
  const api = createEngineApi({ db: tdb.db, notifier: recordingNotifier(), dagsDir, catalog });
  for (let r = 0; r < RUNS; r++) await api.triggerDagRun("big", { runId: `run_${r}`, logicalDate: new Date(Date.UTC(2026, 0, 1 + r)).toISOString() });
  for (let s = 0; s < STATES.length; s++) {
    await tdb.db
      .updateTable("task_instance")
      .set({ state: STATES[s] as "success", try_number: 1 })
      .where("dag_id", "=", "big")
      .where((eb) => eb(eb.fn("abs", [eb.fn("hashtext", ["task_id"])]), "%" as never, STATES.length as never), "=", s as never)
      .execute();
  }
  // The runs ended but the newest (still running): the grid's live stream then reads that one run's
  // squares on each poll, as on a real DAG. With --all-active every run stays queued, as before: the
  // stream of an open grid then sends all 5,000 squares at first and reads them on every poll.
  if (!values["all-active"]) {
    const newest = `run_${RUNS - 1}`;
    await tdb.db.updateTable("dag_run").set({ state: "success" }).where("dag_id", "=", "big").where("run_id", "!=", newest).execute();
    await tdb.db.updateTable("dag_run").set({ state: "running" }).where("dag_id", "=", "big").where("run_id", "=", newest).execute();
  }
  const app = createWebUiApp({ api, auth: AUTH, ui: { db: tdb.db } });
  const port = await freePort();
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(port, "127.0.0.1", () => resolve(s));
  });
  const base = `http://127.0.0.1:${port}`;
  const browser = await launchChromium();
  const json: Record<string, unknown> = { tasks: TASKS, runs: RUNS, rounds: ROUNDS };
  try {
    // Signed in as a browser is once the user has answered the login prompt: the credentials sent
    // with every request (Playwright's httpCredentials would answer a 401 through the driver each time).
    const context = await browser.newContext({ extraHTTPHeaders: { authorization: BASIC }, viewport: { width: 1360, height: 860 } });
    // Reached as people reach them: the DAG list again; the grid from the DAG list (a click on the
    // DAG's name), and the grid again (reloaded). The previous page's unload is in the timing.
    for (const [key, name, url, from] of [
      ["dag_list", "DAG list (31 DAGs), reloaded", "/home", undefined],
      ["grid", `grid ${TASKS} tasks × ${RUNS} runs, from the DAG list`, "/dags/big/grid", "/home"],
      ["grid_reload", `grid ${TASKS} tasks × ${RUNS} runs, reloaded`, "/dags/big/grid", undefined],
    ] as const) {
      const serverMs: number[] = [];
      let size = 0;
      for (let i = 0; i < WARM_UP + ROUNDS; i++) {
        const t0 = performance.now();
        const res = await fetch(base + url, { headers: { authorization: BASIC } });
        const body = await res.text();
        if (!res.ok || body.length < 100) throw new Error(`${url}: ${res.status}`);
        if (i >= WARM_UP) serverMs.push(performance.now() - t0);
        size = body.length;
      }
      const page = await context.newPage();
      const navs: Nav[] = [];
      for (let i = 0; i < WARM_UP + ROUNDS; i++) {
        if (from) await page.goto(base + from, { waitUntil: "load" });
        const t0 = performance.now();
        await page.goto(base + url, { waitUntil: "load" });
        const wall = performance.now() - t0;
        const nav = await page.evaluate(() => {
          // Runs in the page (the DOM's PerformanceNavigationTiming; the project's types have no DOM lib).
          const n = (performance as unknown as { getEntriesByType(t: string): Record<string, number>[] }).getEntriesByType("navigation")[0]!;
          return { responseEnd: n.responseEnd!, domInteractive: n.domInteractive!, domContentLoaded: n.domContentLoadedEventStart!, load: n.loadEventStart! };
        });
        if (i >= WARM_UP) navs.push({ ...nav, wall });
      }
      if (values.trace && key !== "dag_list") {
        if (from) await page.goto(base + from, { waitUntil: "load" });
        await browser.startTracing(page, { path: path.join(values.trace, `${key}.trace.json`), screenshots: false });
        await page.goto(base + url, { waitUntil: "load" });
        await browser.stopTracing();
      }
      await page.close();
      const m = (k: keyof Nav) => median(navs.map((n) => n[k] ?? NaN));
      const load = m("load");
      process.stdout.write(
        `${name}: server ${median(serverMs).toFixed(1)} ms (HTML ${(size / 1024).toFixed(0)} KiB); Chromium, warm, median of ${ROUNDS}: ` +
          `response end ${m("responseEnd").toFixed(0)} ms, DOM interactive ${m("domInteractive").toFixed(0)} ms, ` +
          `DOMContentLoaded ${m("domContentLoaded").toFixed(0)} ms, load ${load.toFixed(0)} ms (max ${Math.max(...navs.map((n) => n.load)).toFixed(0)}; page.goto ${m("wall").toFixed(0)} ms); ` +
          `target ${TARGET_MS} ms: ${load < TARGET_MS ? "met" : "missed"}\n`,
      );
      Object.assign(json, { [`${key}_server_ms`]: median(serverMs), [`${key}_html_kib`]: size / 1024, [`${key}_dcl_ms`]: m("domContentLoaded"), [`${key}_load_ms`]: load });
    }
    await context.close();
  } finally {
    await browser.close();
    server.closeAllConnections();
    server.close();
    await tdb.drop();
    rmSync(dagsDir, { recursive: true, force: true });
  }
  console.log(jsonLine(json));
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  },
);
