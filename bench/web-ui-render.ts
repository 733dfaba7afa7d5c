/**
 * Web UI render times: the DAG list and a 200-task × 25-run grid (5,000 task instances), served by the
 * real app over loopback and loaded in Chromium. Prints medians; run with `pnpm exec tsx bench/web-ui-render.ts`.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { createEngineApi, recordingNotifier, syncDagFolder } from "@svc/engine";
import { defaultOperators } from "@svc/operators";
import { createTestDb, freePort } from "@svc/testing";
import { createWebUiApp } from "../services/web-ui/src/app";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../services/web-ui/test/ui/ui-stack";

const TASKS = Number(process.env.BENCH_TASKS ?? 200);
const RUNS = 25;
const ROUNDS = 15;
const STATES = ["success", "success", "success", "failed", "running", "queued", "up_for_retry", "skipped", "upstream_failed", "scheduled"];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

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
  const app = createWebUiApp({ api, auth: {}, ui: { db: tdb.db } });
  const port = await freePort();
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(port, "127.0.0.1", () => resolve(s));
  });
  const base = `http://127.0.0.1:${port}`;
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    for (const [name, url] of [
      ["DAG list", "/home"],
      [`grid ${TASKS} tasks × ${RUNS} runs`, "/dags/big/grid"],
    ] as const) {
      const server: number[] = [];
      for (let i = 0; i < ROUNDS + 2; i++) {
        const t0 = performance.now();
        const res = await fetch(base + url);
        const body = await res.text();
        if (!res.ok || body.length < 100) throw new Error(`${url}: ${res.status}`);
        if (i >= 2) server.push(performance.now() - t0);
      }
      const page = await browser.newPage();
      const browserMs: number[] = [];
      for (let i = 0; i < 7; i++) {
        const t0 = performance.now();
        await page.goto(base + url, { waitUntil: "load" });
        browserMs.push(performance.now() - t0);
      }
      const size = (await (await fetch(base + url)).text()).length;
      await page.close();
      process.stdout.write(
        `${name}: server ${median(server).toFixed(1)} ms median (HTML ${(size / 1024).toFixed(0)} KiB); Chromium load ${median(browserMs).toFixed(1)} ms median\n`,
      );
    }
  } finally {
    await browser.close();
    server.closeAllConnections();
    server.close();
    await tdb.drop();
    rmSync(dagsDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  },
);
