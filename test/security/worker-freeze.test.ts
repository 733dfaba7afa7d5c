// A frozen worker (a GC pause, a SIGSTOPped container) must not make a host effect happen twice.
// The real stack: Postgres, Redis (own prefix), a private sshd as "the host", the scheduler and two
// worker processes. A task appends a line per second to a file on the host for ~20 s; the worker
// running it is SIGSTOPped past the zombie timeout, so try 1 is reaped and try 2 starts on the other
// worker while try 1's command still runs; then the frozen worker continues. The host-side fence
// makes try 2 wait for try 1's command and adopt its result: one run's lines, one success.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { dagSettingsFromConfig, loadConfig } from "@svc/config";
import { createEngineApi, createQueueNotifier } from "@svc/engine";
import { defaultOperators } from "@svc/operators";
import { createQueues, type Queues } from "@svc/queue";
import { createTestDb, createTestRedis, stackSettings, startSshd, waitFor, type TestDb, type TestRedis, type TestSshd } from "@svc/testing";
import { serviceProc, type ServiceProc } from "../../bench/chaos/service-proc";

jest.setTimeout(240_000);

const DAG_ID = "worker_freeze";
const LINES = 20;
let tdb: TestDb;
let redis: TestRedis;
let sshd: TestSshd;
let dir: string;
let queues: Queues | undefined;
const procs: ServiceProc[] = [];
const stopped = new Set<number>();

beforeAll(async () => {
  tdb = await createTestDb("freeze");
  redis = createTestRedis("freeze");
  sshd = await startSshd();
  dir = mkdtempSync(path.join(os.tmpdir(), "svc-freeze-"));
});

afterAll(async () => {
  for (const pid of stopped) process.kill(pid, "SIGCONT");
  for (const p of procs) await p.stop(5000);
  await queues?.close().catch(() => undefined);
  await sshd?.stop();
  await redis?.cleanup();
  await tdb?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("a worker frozen past the zombie timeout: try 2 adopts try 1's still-running host command; the effect happens once and the run succeeds", async () => {
  const effect = path.join(dir, "effect.txt");
  const dagsDir = path.join(dir, "dags");
  mkdirSync(dagsDir);
  const script = `for i in $(seq ${LINES}); do echo "line $i" >> "$1"; echo "tick $i"; sleep 1; done`;
  writeFileSync(
    path.join(dagsDir, `${DAG_ID}.yaml`),
    [
      `dag_id: ${DAG_ID}`,
      "schedule: null",
      "tasks:",
      "  - task_id: slow_effect",
      "    operator: ssh",
      `    args: { argv: [sh, -c, ${JSON.stringify(script)}, sh, ${JSON.stringify(effect)}] }`,
      "",
    ].join("\n"),
  );
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    USER: process.env.USER,
    LANG: process.env.LANG,
    ...stackSettings(tdb, redis, dagsDir),
    SVC_LOG_LEVEL: "warn",
    SVC_LOG_FORMAT: "json",
    SVC_ZOMBIE_AFTER_MS: "3000",
    SVC_RECONCILE_INTERVAL_MS: "1000",
    SVC_WORKER_HEARTBEAT_MS: "500",
    SVC_WORKER_CONCURRENCY: "1",
    SVC_SSH_HOST: sshd.host,
    SVC_SSH_PORT: String(sshd.port),
    SVC_SSH_USER: sshd.user,
    SVC_SSH_KEY_PATH: sshd.keyPath,
    SVC_SSH_KNOWN_HOSTS: sshd.knownHostsPath,
    SVC_HOST_STATE_DIR: path.join(dir, "tries"),
    SVC_INVENTORY_DIR: path.join(dir, "inventory"),
  };
  const log = (n: string) => path.join(dir, `${n}.log`);
  const scheduler = serviceProc("scheduler", "scheduler", env, log("scheduler"));
  const workers = [1, 2].map((i) => serviceProc(`worker-${i}`, "worker", env, log(`worker-${i}`)));
  procs.push(scheduler, ...workers);
  for (const p of procs) p.start();
  const logs = () => procs.map((p) => `--- ${p.name}\n${existsSync(log(p.name)) ? readFileSync(log(p.name), "utf8").slice(-3000) : ""}`).join("\n");
  const db = tdb.db;
  // task_instance holds the current try of the task (older tries live on in task_log).
  const ti = (tryNumber: number) =>
    db.selectFrom("task_instance").selectAll().where("dag_id", "=", DAG_ID).where("task_id", "=", "slow_effect").where("try_number", "=", tryNumber).executeTakeFirst();

  try {
    await waitFor(async () => !!(await db.selectFrom("dag").select("dag_id").where("dag_id", "=", DAG_ID).executeTakeFirst()), {
      timeoutMs: 90_000,
      intervalMs: 500,
      what: "the DAG parsed by the scheduler",
    });
    await waitFor(async () => Number((await db.selectFrom("component_heartbeat").select(db.fn.countAll().as("n")).where("component", "=", "worker").executeTakeFirst())?.n) === 2, {
      timeoutMs: 90_000,
      intervalMs: 500,
      what: "two workers heartbeating",
    });
    queues = createQueues({ url: redis.url, prefix: redis.prefix });
    const engine = createEngineApi({ db, notifier: createQueueNotifier(queues), dagsDir, catalog: defaultOperators(), settings: dagSettingsFromConfig(loadConfig(env)) });
    await engine.setPaused(DAG_ID, false);
    const run = await engine.triggerDagRun(DAG_ID, { runId: "freeze-1" });
    const lines = () => (existsSync(effect) ? readFileSync(effect, "utf8").split("\n").filter(Boolean) : []);

    // Try 1's command is running on the host: freeze the worker that runs it.
    await waitFor(() => lines().length >= 2, { timeoutMs: 60_000, intervalMs: 200, what: "try 1's command appending on the host" });
    const first = await ti(1);
    const hb = await db.selectFrom("component_heartbeat").select("pid").where("component", "=", "worker").where("instance_id", "=", first!.worker_id!).executeTakeFirstOrThrow();
    const frozen = workers.find((w) => w.pid() === hb.pid);
    expect(frozen).toBeDefined();
    process.kill(hb.pid, "SIGSTOP");
    stopped.add(hb.pid);
    const frozenAt = lines().length;

    // Past the zombie timeout, try 2 runs on the other worker while try 1's command goes on.
    await waitFor(async () => (await ti(2))?.state === "running", { timeoutMs: 20_000, intervalMs: 200, what: "try 2 running on the other worker" });
    expect((await ti(2))!.worker_id).not.toBe(first!.worker_id);
    // Try 2 reached the host: it waits for try 1's command (or, unfenced, runs its own).
    const reached = await waitFor(
      async () =>
        (
          await db
            .selectFrom("task_log")
            .select("line")
            .where("dag_id", "=", DAG_ID)
            .where("try_number", "=", 2)
            .where((eb) => eb.or([eb("line", "like", "%still running on this host; waiting%"), eb("line", "like", "tick %")]))
            .executeTakeFirst()
        )?.line,
      { timeoutMs: 20_000, intervalMs: 200, what: "try 2 on the host" },
    );
    expect(lines().length).toBeLessThan(LINES);
    process.kill(hb.pid, "SIGCONT");
    stopped.delete(hb.pid);

    await waitFor(async () => (await engine.getDagRun(DAG_ID, run.dag_run_id)).state === "success", {
      timeoutMs: 90_000,
      intervalMs: 500,
      what: "the run to succeed",
    });
    // Exactly one run's effect: each line once, in order.
    expect(lines()).toEqual(Array.from({ length: LINES }, (_, i) => `line ${i + 1}`));
    expect(frozenAt).toBeLessThan(LINES);
    expect(reached).toMatch(/svc-fence: try 1 of this task is still running on this host; waiting for it to finish/);
    const last = await ti(2);
    expect(last).toMatchObject({ state: "success" });
    const log2 = (await db.selectFrom("task_log").select("line").where("dag_id", "=", DAG_ID).where("try_number", "=", 2).orderBy("id").execute()).map((r) => r.line);
    expect(log2.join("\n")).toMatch(/svc-fence: adopted the result of try 1 of this task \(exit 0\)/);
    expect(log2.filter((l) => /^tick \d+$/.test(l))).toHaveLength(LINES);
  } catch (e) {
    process.stderr.write(`service logs:\n${logs()}\n`);
    throw e;
  }
});
