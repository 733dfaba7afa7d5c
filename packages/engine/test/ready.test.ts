import { createHarness, type Harness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await createHarness("ready");
});
afterAll(async () => {
  await h.close();
});

test("a scheduler is ready once it leads and has loaded the DAG folder and reconciled: a DAG written before start is listed, paused", async () => {
  h.writeDag("early.yaml", "dag_id: early\ntasks:\n  - {task_id: a, operator: noop}\n");
  const { scheduler } = h.startRuntime({ worker: false });
  await scheduler!.ready();
  expect(scheduler!.isLeader()).toBe(true);
  expect((await h.api.listDags()).dags.map((d) => [d.dag_id, d.is_paused])).toEqual([["early", true]]);
});
