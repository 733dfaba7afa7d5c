import { createHarness, type Harness } from "./harness";

// No periodic reconciliation here (only the pass at start-up): a finished run is seen only if the
// leaf checks of the workers notice it, so a lost check makes the run hang and the test time out.
const NO_RECONCILE = { reconcileIntervalMs: 3_600_000 };

let h: Harness;
beforeAll(async () => {
  h = await createHarness("fanout");
  const leaves = (n: number, op: string) => Array.from({ length: n }, (_, i) => `  - {task_id: ${op}${i}, operator: ${op}${op === "shell" ? ", args: {argv: [\"true\"]}" : ""}}`).join("\n");
  h.writeDag("fan.yaml", `dag_id: fan\ntasks:\n${leaves(150, "noop")}\n${leaves(10, "shell")}\n`);
  await h.sync();
  await h.api.setPaused("fan", false);
  h.startRuntime({ worker: false, ...NO_RECONCILE });
  for (let i = 0; i < 3; i++) h.startRuntime({ scheduler: false, ...NO_RECONCILE });
});
afterAll(async () => {
  await h.close();
});

test("wide fan-outs over several workers finish without reconciliation: the last leaf to settle in each worker asks whether its run is done", async () => {
  const runs = await Promise.all([0, 1, 2].map((i) => h.api.triggerDagRun("fan", { runId: `fan-${i}` })));
  for (const r of runs) {
    expect((await h.waitRun("fan", r.dag_run_id)).state).toBe("success");
    const states = Object.values(await h.tis("fan", r.dag_run_id)).map((t) => t.state);
    expect(states).toHaveLength(160);
    expect(new Set(states)).toEqual(new Set(["success"]));
  }
});
