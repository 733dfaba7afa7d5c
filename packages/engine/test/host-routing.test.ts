import { z } from "zod";
import { builtinOperators, createOperatorRegistry } from "./fixtures/operators";
import type { Operator, OperatorHost } from "../src/ports";
import { hostQueueName, taskJobId } from "@svc/queue";
import { waitFor } from "@svc/testing";
import { reconcile } from "../src/runtime/reconcile";
import { type HostRouting } from "../src/ports/host-routing";
import { type RuntimeDeps } from "../src/runtime/deps";
import { createHarness, type Harness } from "./harness";

/** A host-scoped operator that reports the host it ran on (the engine's routing is what is tested). */
const whereAmI: Operator<{ host?: string }> = {
  name: "where_am_i",
  description: "report the host the try ran on",
  args: z.object({ host: z.string().optional() }),
  hostScoped: true,
  async run(_a, ctx) {
    return { ran_on: ctx.host?.name ?? null };
  },
};

/**
 * The router of one worker: it serves `served`, routes by the task's `host` arg, and finds a host
 * up while it is in `up`. (@svc/hosts' router, probing real hosts, is tested on its own and end to end.)
 */
function routing(served: string[], up = new Set(served)) {
  const listeners: (() => void)[] = [];
  const ranOn: string[] = [];
  const r: HostRouting & { setUp(host: string, isUp: boolean): void; ranOn: string[] } = {
    ranOn,
    served: () => served,
    serves: (h) => served.includes(h) && up.has(h),
    route: async (req) => {
      const host = typeof req.args.host === "string" ? req.args.host : "a";
      return { host, lines: [`placed on ${host} by the test router`] };
    },
    operatorHost: (h): OperatorHost => (ranOn.push(h), { name: h, executor: {}, libvirtUri: "qemu:///system", disksDir: "/x", imagesDir: "/y" }),
    onChange: (l) => void listeners.push(l),
    status: () => Object.fromEntries(served.map((h) => [h, { up: up.has(h) }])),
    close: async () => undefined,
    setUp(host, isUp) {
      if (isUp) up.add(host);
      else up.delete(host);
      for (const l of listeners) l();
    },
  };
  return r;
}

const builtin = builtinOperators();
const operators = createOperatorRegistry([...builtin.names().map((n) => builtin.get(n)!), whereAmI]);
let h: Harness;
const routerA = routing(["a"]);
const routerB = routing(["b"]);
const workerOf = async (dagId: string, runId: string, taskId: string) => {
  const lines = await h.logs(dagId, runId, taskId);
  return lines.filter((l) => l.startsWith("running on host")).map((l) => l.replace(/^running on host (\S+) \(worker (\S+)\)$/, "$1 $2"));
};

beforeAll(async () => {
  h = await createHarness("hostroute", { operators });
  h.writeDag(
    "hosts.yaml",
    [
      "dag_id: hosts",
      "tasks:",
      "  - {task_id: on_a, operator: where_am_i, args: {host: a}}",
      "  - {task_id: on_b, operator: where_am_i, args: {host: b}}",
      "  - {task_id: on_b2, operator: where_am_i, args: {host: b}, depends_on: [on_a]}",
      "  - {task_id: plain, operator: noop}",
      "",
    ].join("\n"),
  );
  h.writeDag(
    "queues.yaml",
    [
      "dag_id: queues",
      "tasks:",
      "  - {task_id: plain_on_b, operator: noop, queue: b}",
      "  - {task_id: scoped_on_b, operator: where_am_i, queue: b}",
      "  - {task_id: two_hosts, operator: where_am_i, args: {host: a}, queue: b}",
      "",
    ].join("\n"),
  );
  await h.sync();
  await h.api.setPaused("hosts", false);
  await h.api.setPaused("queues", false);
  h.startRuntime({ worker: false, operators });
  h.startRuntime({ scheduler: false, operators, hosts: routerA, workerConcurrency: 2 });
  h.startRuntime({ scheduler: false, operators, hosts: routerB, workerConcurrency: 2 });
});
afterAll(async () => {
  await h.close();
});

test("a worker serving only host a never runs a try routed to host b, and each try runs on its host's worker", async () => {
  const workersOf = { a: new Set<string>(), b: new Set<string>() };
  const t0 = Date.now(); // distinct logical dates: triggers in the same millisecond would clash
  const runs = await Promise.all([1, 2, 3, 4].map((i) => h.api.triggerDagRun("hosts", { runId: `r${i}`, logicalDate: new Date(t0 + i) })));
  for (const r of runs) expect((await h.waitRun("hosts", r.dag_run_id)).state).toBe("success");
  for (const r of runs) {
    const tis = await h.tis("hosts", r.dag_run_id);
    expect([tis.on_a?.host, tis.on_b?.host, tis.on_b2?.host, tis.plain?.host]).toEqual(["a", "b", "b", null]);
    expect(tis.on_b?.output).toEqual({ ran_on: "b" });
    for (const [task, host] of [
      ["on_a", "a"],
      ["on_b", "b"],
      ["on_b2", "b"],
    ] as const) {
      const ran = await workerOf("hosts", r.dag_run_id, task);
      expect(ran).toHaveLength(1);
      expect(ran[0]!.split(" ")[0]).toBe(host);
      workersOf[host].add(ran[0]!.split(" ")[1]!);
    }
  }
  // One worker ran every try of a host, never the other's: the routers saw only their own host.
  expect([workersOf.a.size, workersOf.b.size]).toEqual([1, 1]);
  expect([...workersOf.a][0]).not.toBe([...workersOf.b][0]);
  expect(new Set(routerA.ranOn)).toEqual(new Set(["a"]));
  expect(new Set(routerB.ranOn)).toEqual(new Set(["b"]));
  // Both workers took tries from the shared queue; the ones for the other host were moved, not run.
  const moved = await h.db.selectFrom("task_log").select("line").where("line", "like", "moved to the queue of host%").execute();
  expect(moved.length).toBeGreaterThan(0);
});

test("tries for a host that is down wait in its queue, none fails, and run when it is back", async () => {
  routerB.setUp("b", false);
  const run = await h.api.triggerDagRun("hosts", { runId: "down" });
  await waitFor(async () => (await h.tis("hosts", "down")).on_a?.state === "success", { what: "on_a done" });
  await waitFor(
    async () => {
      const tis = await h.tis("hosts", "down");
      return tis.on_b?.state === "queued" && tis.on_b.host === "b" && tis.on_b2?.state === "queued" && tis.on_b2.host === "b";
    },
    { what: "host b's tries queued on b", timeoutMs: 15000 },
  );
  await new Promise((r) => setTimeout(r, 1500));
  const waiting = await h.tis("hosts", "down");
  expect([waiting.on_b?.state, waiting.on_b2?.state, waiting.on_b?.try_number]).toEqual(["queued", "queued", 1]);

  // Reconciliation puts a routed try whose job Redis lost back on its host's queue.
  const q = h.queues.forTask({ host: "b" });
  const id = taskJobId({ dagId: "hosts", runId: "down", taskId: "on_b", tryNumber: 1 });
  await (await q.getJob(id))?.remove();
  expect(await q.getJob(id)).toBeUndefined();
  await new Promise((r) => setTimeout(r, 1100));
  const deps: RuntimeDeps = h.runtimeDeps("reconcile-test");
  await reconcile(deps);
  const back = await q.getJob(id);
  expect(back?.queueName).toBe(hostQueueName("b"));

  routerB.setUp("b", true);
  expect((await h.waitRun("hosts", run.dag_run_id)).state).toBe("success");
  const tis = await h.tis("hosts", "down");
  expect([tis.on_b?.try_number, tis.on_b?.output]).toEqual([1, { ran_on: "b" }]);
});

test("Airflow's queue on a task runs it only on a worker serving that host, and a host arg naming another is refused", async () => {
  const run = await h.api.triggerDagRun("queues", { runId: "q1" });
  expect((await h.waitRun("queues", run.dag_run_id)).state).toBe("failed");
  const tis = await h.tis("queues", "q1");
  expect([tis.plain_on_b?.state, tis.plain_on_b?.host, tis.scoped_on_b?.state, tis.scoped_on_b?.output]).toEqual(["success", "b", "success", { ran_on: "b" }]);
  const bWorker = (await workerOf("hosts", "r1", "on_b"))[0]!.split(" ")[1];
  for (const task of ["plain_on_b", "scoped_on_b"]) expect(await workerOf("queues", "q1", task)).toEqual([`b ${bWorker}`]);
  expect(tis.two_hosts?.state).toBe("failed");
  expect((await h.logs("queues", "q1", "two_hosts")).join("\n")).toContain("the task's queue is 'b' but its host arg is \"a\"");
  // Airflow's Task and TaskInstance `queue` fields name the host's queue.
  const task = (await h.api.listTasks("queues")).tasks.find((t) => t.task_id === "plain_on_b");
  expect(task?.queue).toBe(hostQueueName("b"));
});

test("a task whose queue is not a valid host name is refused when the DAG is read", async () => {
  h.writeDag("bad-queue.yaml", ["dag_id: bad_queue", "tasks:", "  - {task_id: t, operator: noop, queue: B_2}", ""].join("\n"));
  await h.sync();
  const errors = await h.db.selectFrom("import_error").select(["filename", "stacktrace"]).execute();
  const mine = errors.find((e) => e.filename.endsWith("bad-queue.yaml"));
  expect(mine?.stacktrace).toMatch(/queue/);
});
