import { createOperatorRegistry, triggerDagRunOperator } from "./fixtures/operators";
import type { Operator } from "../src/ports";
import { waitFor } from "@svc/testing";
import { executeTry } from "../src/runtime/execute-try";
import { createHarness, type Harness } from "./harness";

let h: Harness;

beforeAll(async () => {
  h = await createHarness("trigcrash");
  h.writeDag("child.yaml", `dag_id: child\ntasks:\n  - {task_id: a, operator: sleep, args: {seconds: 0.1}}\n`);
  h.writeDag("parent.yaml", `dag_id: parent\ntasks:\n  - {task_id: run_child, operator: trigger_dag_run, args: {trigger_dag_id: child, poke_interval: 1}}\n`);
  await h.sync();
  await h.api.setPaused("parent", false);
  await h.api.setPaused("child", false);
});

afterAll(async () => h?.close());

/** trigger_dag_run on a worker that dies right after the child run is in Postgres: nothing after that runs, no heartbeat. */
function doomedOperator(onChild: () => void): Operator {
  return {
    ...triggerDagRunOperator,
    run: (args, ctx) =>
      triggerDagRunOperator.run(args, {
        ...ctx,
        dagRuns: {
          ...ctx.dagRuns!,
          trigger: async (...a) => {
            await ctx.dagRuns!.trigger(...a);
            onChild();
            return new Promise(() => undefined);
          },
        },
      }),
  };
}

test("a worker killed right after it created the child run: the try resumes on another worker as the same try and adopts that run (one child run, linked)", async () => {
  h.startRuntime({ worker: false });
  await h.api.triggerDagRun("parent", { runId: "crash-1" });
  const key = { dagId: "parent", runId: "crash-1", taskId: "run_child", tryNumber: 1 };
  await waitFor(async () => (await h.tis("parent", "crash-1")).run_child?.state === "queued", { what: "try 1 queued" });

  // First delivery: a worker with no heartbeat, which goes silent once the child run exists.
  let childMade!: () => void;
  const made = new Promise<void>((r) => (childMade = r));
  const stop = new AbortController();
  const doomedDeps = h.runtimeDeps("doomed-worker", { operators: createOperatorRegistry([doomedOperator(() => childMade())]) });
  const doomed = executeTry(doomedDeps, key, stop.signal).catch(() => undefined);
  await made;

  // A live worker; the scheduler reaps the silent one's try and queues it again at try 1.
  h.startRuntime({ scheduler: false });
  expect((await h.waitRun("parent", "crash-1")).state).toBe("success");
  stop.abort(new Error("test over"));
  await doomed;

  const runs = await h.db.selectFrom("dag_run").selectAll().where("dag_id", "=", "child").execute();
  expect(runs.map((r) => [r.state, r.parent_run_id, r.parent_task_id, r.parent_try_number])).toEqual([["success", "crash-1", "run_child", 1]]);
  const ti = (await h.tis("parent", "crash-1")).run_child!;
  expect([ti.state, ti.try_number, ti.zombie_count]).toMatchObject(["success", 1, 1]);
  expect(ti.output).toMatchObject({ trigger_run_id: runs[0]!.run_id, state: "success" });
  const log = await h.logs("parent", "crash-1", "run_child", 1);
  expect(log.some((l) => /^worker doomed-worker stopped heartbeating; the same try will resume on another worker$/.test(l))).toBe(true);
  expect(log.filter((l) => l.startsWith("triggered run"))).toEqual([]);
  expect(log).toContain(`run ${runs[0]!.run_id} of DAG child is success`);
});
