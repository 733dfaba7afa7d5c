import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ACTIVE_PLANNING_STATUSES } from "@svc/flows";
import { silentLogger } from "@svc/logger";
import { createQueues, type Queues } from "@svc/queue";
import { startTcpHold, waitFor, type TcpHold } from "@svc/testing";
import { serviceProc, type ServiceProc } from "../../../bench/chaos/service-proc";
import { createStack, type Stack } from "../../assistant-api/test/stack";
import { createOrchestrator, type Orchestrator } from "../src";

// An orchestrator killed after it took an intent's job and before it read the flow (its database
// stopped answering in between): the flow is still pending and the job is held under the dead
// process's lock. The job comes back when that lock lapses (SVC_WORKER_LOCK_MS, checked every half
// of it), not when the sweep resumes flows left idle (30 s), and another orchestrator plans it.
let s: Stack;
let hold: TcpHold;
let queues: Queues;
let child: ServiceProc | undefined;
let second: Orchestrator | undefined;
let dir: string;
const LOCK_MS = 2000;

beforeAll(async () => {
  s = await createStack("orchtaken", { orchestrator: false });
  hold = await startTcpHold(Number(new URL(s.tdb.url).port || 5432));
  queues = createQueues({ url: s.redis.url, prefix: s.redis.prefix });
  dir = mkdtempSync(path.join(os.tmpdir(), "svc-orchtaken-"));
}, 60000);

afterAll(async () => {
  await child?.kill9();
  await child?.stop();
  await second?.close();
  await queues?.close();
  await hold?.close();
  await s?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("an orchestrator killed between taking an intent's job and reading its flow: the job comes back after its lock lapses and another orchestrator plans the flow", async () => {
  const held = new URL(s.tdb.url);
  held.port = String(hold.port);
  const logFile = path.join(dir, "orchestrator.log");
  const env = {
    ...process.env,
    DATABASE_URL: held.toString(),
    REDIS_URL: s.redis.url,
    SVC_REDIS_PREFIX: s.redis.prefix,
    SVC_DAGS_DIR: s.dagsDir,
    SVC_LOG_LEVEL: "info",
    SVC_WORKER_LOCK_MS: String(LOCK_MS),
  };
  child = serviceProc("orchestrator", "orchestrator", env, logFile);
  child.start();
  await waitFor(() => readFileSync(logFile, "utf8").includes("orchestrator started"), { timeoutMs: 30000, what: "the orchestrator's start" });

  hold.hold();
  const flow = await s.assistant.store.create({ intent: "run a health check", requestedParams: {}, autoApprove: false, autoExecute: true });
  await queues.intents.add("plan", { flowId: flow.flow_id, action: "plan" }, { jobId: `plan|${flow.flow_id}`, attempts: 5 });
  await waitFor(async () => (await queues.intents.getActiveCount()) === 1, { timeoutMs: 20000, what: "the job taken by the orchestrator whose database is held" });
  expect((await s.flow(flow.flow_id)).status).toBe("pending");
  await child.kill9();

  // The sweep would resume the flow only after a minute here; BullMQ's defaults would take up to one.
  const config = { ...s.config, worker: { ...s.config.worker, lockMs: LOCK_MS } };
  second = createOrchestrator({ db: s.tdb.db, config, logger: silentLogger(), resumeAfterMs: 60_000 });
  const planned = await waitFor(
    async () => {
      const row = await s.flow(flow.flow_id);
      return (ACTIVE_PLANNING_STATUSES as readonly string[]).includes(row.status) ? undefined : row;
    },
    { timeoutMs: 20000, intervalMs: 100, what: "the flow planned by the second orchestrator" },
  );
  expect(planned.status).toBe("awaiting_approval");
  expect(planned.dag_id).toBe("infrastructure_health_check");
  expect(planned.phases_completed.filter((p) => p === "dag_discovery")).toHaveLength(1);
}, 90000);
