import { createHarness, type Harness } from "./harness";

// No periodic reconciliation here (only the pass at start-up): a finished run is seen only if the
// leaf checks of the workers notice it, so a lost check makes the run hang and the test time out.
const NO_RECONCILE = { reconcileIntervalMs: 3_600_000 };

let h: Harness;
beforeAll(async () => {
  h = await createHarness("fanout");
  const leaves = (n: number, op: string) =>
    Array.from({ length: n }, (_, i) => `  - {task_id: ${op}${i}, operator: ${op}${op === "shell" ? ', args: {argv: ["true"]}' : ""}}`).join("\n");
  h.writeDag("fan.yaml", `dag_id: fan\ntasks:\n${leaves(150, "noop")}\n${leaves(10, "shell")}\n`);
  h.writeDag("burst.yaml", "dag_id: burst\ntasks:\n  - {task_id: a, operator: noop}\n  - {task_id: b, operator: noop, depends_on: [a]}\n");
  h.writeDag("serial.yaml", "dag_id: serial\nmax_active_runs: 1\ntasks:\n  - {task_id: s, operator: sleep, args: {seconds: 0.2}}\n");
  // Upstream tasks that end together in each worker: they leave the evaluation to each other.
  const mids = Array.from({ length: 24 }, (_, i) => `  - {task_id: m${i}, operator: sleep, args: {seconds: 0.2}, depends_on: [start]}`);
  h.writeDag(
    "fanin.yaml",
    `dag_id: fanin\ntasks:\n  - {task_id: start, operator: noop}\n${mids.join("\n")}\n  - {task_id: end, operator: noop, depends_on: [${mids.map((_, i) => `m${i}`).join(", ")}]}\n`,
  );
  await h.sync();
  for (const d of ["fan", "burst", "serial", "fanin"]) await h.api.setPaused(d, false);
  h.startRuntime({ worker: false, ...NO_RECONCILE });
  for (let i = 0; i < 3; i++) h.startRuntime({ scheduler: false, ...NO_RECONCILE });
});
afterAll(async () => {
  await h.close();
});

test("wide fan-outs over several workers finish without reconciliation: the last leaf to settle in each worker asks whether its run is done", async () => {
  // Distinct logical dates: triggers in the same millisecond would otherwise clash.
  const t0 = Date.now();
  const runs = await Promise.all([0, 1, 2].map((i) => h.api.triggerDagRun("fan", { runId: `fan-${i}`, logicalDate: new Date(t0 + i) })));
  for (const r of runs) {
    expect((await h.waitRun("fan", r.dag_run_id)).state).toBe("success");
    const states = Object.values(await h.tis("fan", r.dag_run_id)).map((t) => t.state);
    expect(states).toHaveLength(160);
    expect(new Set(states)).toEqual(new Set(["success"]));
  }
});

test("fan-out/fan-in runs over several workers finish without reconciliation: the join runs once, after its last upstream, though most upstream successes left the evaluation to a later try", async () => {
  const t0 = Date.now();
  const runs = await Promise.all([0, 1, 2].map((i) => h.api.triggerDagRun("fanin", { runId: `fanin-${i}`, logicalDate: new Date(t0 + i) })));
  for (const r of runs) {
    expect((await h.waitRun("fanin", r.dag_run_id)).state).toBe("success");
    const tis = Object.values(await h.tis("fanin", r.dag_run_id));
    expect(tis.map((t) => `${t.state}@${t.try_number}`)).toEqual(Array(26).fill("success@1"));
    const end = tis.find((t) => t.task_id === "end")!;
    const lastUpstream = Math.max(...tis.filter((t) => t.task_id.startsWith("m")).map((t) => new Date(t.end_date!).getTime()));
    expect(new Date(end.start_date!).getTime()).toBeGreaterThanOrEqual(lastUpstream);
  }
});

test("a burst of 12 triggers on one DAG: every run starts and succeeds with periodic reconciliation off (dag events folded per DAG)", async () => {
  const t0 = Date.now();
  const runs = await Promise.all(Array.from({ length: 12 }, (_, i) => h.api.triggerDagRun("burst", { runId: `burst-${i}`, logicalDate: new Date(t0 + i) })));
  for (const r of runs) expect((await h.waitRun("burst", r.dag_run_id)).state).toBe("success");
});

test("max_active_runs 1: four runs triggered together start one after another as earlier runs end, with periodic reconciliation off", async () => {
  const t0 = Date.now();
  const runs = await Promise.all(Array.from({ length: 4 }, (_, i) => h.api.triggerDagRun("serial", { runId: `serial-${i}`, logicalDate: new Date(t0 + i) })));
  const done = [];
  for (const r of runs) done.push(await h.waitRun("serial", r.dag_run_id));
  expect(done.map((r) => r.state)).toEqual(["success", "success", "success", "success"]);
  const spans = done.map((r) => [new Date(r.start_date!).getTime(), new Date(r.end_date!).getTime()] as const).sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < spans.length; i++) expect(spans[i]![0]).toBeGreaterThanOrEqual(spans[i - 1]![1]);
});
