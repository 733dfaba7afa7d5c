// The engine as the product workflows run on it for real: the scheduler and two worker processes
// (so one can be killed), Postgres and Redis of the test's own, a private sshd as the KVM host,
// the catalogue's DAGs and playbooks, a vault-encrypted secrets file, and the debian12 image.
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import path from "node:path";
import { dagSettingsFromConfig, loadConfig } from "@svc/config";
import { createEngineApi, createQueueNotifier } from "@svc/engine";
import { defaultOperators } from "@svc/operators";
import { createQueues, type Queues } from "@svc/queue";
import {
  acquireVmTestLock,
  createTestDb,
  createTestRedis,
  createVmScratch,
  ensureLibvirtd,
  ensureProductImage,
  stackSettings,
  startSshd,
  TEST_IMAGES_DIR,
  waitFor,
  type TestDb,
  type TestRedis,
  type TestSshd,
  type VmScratch,
} from "@svc/testing";
import { serviceProc, type ServiceProc } from "../../bench/chaos/service-proc";
import { REPO_ROOT } from "./stack";

export interface ProductStack {
  db: TestDb["db"];
  engine: ReturnType<typeof createEngineApi>;
  workers: ServiceProc[];
  scheduler: ServiceProc;
  scratch: VmScratch;
  /** SVC_INVENTORY_DIR of the stack (the products' records and the CA roots under pki/). */
  inventoryDir: string;
  /** The secrets file's values (the test checks no log or row carries them). */
  secrets: Record<string, string>;
  imageBuildSeconds: number;
  /** Trigger a run and wait until it ends; returns its final state and task instances by id. */
  run(dagId: string, conf: Record<string, unknown>, timeoutMs: number, onStart?: (runId: string) => Promise<void>): Promise<RunOutcome>;
  /** Every log line of a run's task (all tries), oldest first. */
  logs(dagId: string, runId: string, taskId?: string): Promise<string[]>;
  /** The services' own output, for diagnostics. */
  serviceLogs(): string;
  stop(): Promise<void>;
}

export interface RunOutcome {
  runId: string;
  state: string;
  seconds: number;
  tis: Record<string, { state: string | null; try_number: number; output: unknown; worker_id: string | null }>;
}

/** The 127.0.0.1 port a run's create_vm forwarded to a guest port (throws naming what it has). */
export function forwardedPort(outcome: RunOutcome, proto: "tcp" | "udp", guest: number): number {
  const out = outcome.tis.create_vm!.output as { forwards: { proto: string; guest_port: number; host_address: string; host_port: number }[] };
  const f = out.forwards.find((x) => x.proto === proto && x.guest_port === guest);
  if (!f || f.host_address !== "127.0.0.1") throw new Error(`no ${proto}/${guest} forward on 127.0.0.1 in ${JSON.stringify(out.forwards)}`);
  return f.host_port;
}

/** kill -9 the worker process whose heartbeat carries `workerId` (a try's worker_id), then start it again; resolves to the pid killed. */
export async function killWorker(stack: ProductStack, workerId: string): Promise<number> {
  const hb = await stack.db.selectFrom("component_heartbeat").select("pid").where("component", "=", "worker").where("instance_id", "=", workerId).executeTakeFirstOrThrow();
  const victim = stack.workers.find((w) => w.pid() === hb.pid);
  if (!victim) throw new Error(`no worker of the stack has pid ${hb.pid}`);
  await victim.kill9();
  victim.start();
  return hb.pid;
}

/** The secrets as a vault-encrypted secrets file in `dir` (0600), with its vault password file. */
export function writeVaultSecrets(dir: string, secrets: Record<string, string>): { vaultPass: string; secretsFile: string } {
  const vaultPass = path.join(dir, "vault-pass");
  writeFileSync(vaultPass, `${randomBytes(16).toString("hex")}\n`, { mode: 0o600 });
  const secretsFile = path.join(dir, "secrets.yml");
  writeFileSync(
    secretsFile,
    Object.entries(secrets)
      .map(([k, v]) => `${k}: ${JSON.stringify(v)}\n`)
      .join(""),
    { mode: 0o600 },
  );
  const enc = spawnSync("ansible-vault", ["encrypt", "--vault-password-file", vaultPass, secretsFile], { encoding: "utf8" });
  if (enc.status !== 0) throw new Error(`ansible-vault encrypt failed: ${enc.stderr}`);
  chmodSync(secretsFile, 0o600);
  return { vaultPass, secretsFile };
}

/** A password the Samba domain accepts (complexity: upper, lower, digits), random per test run. */
export const strongPassword = () => `Svc${randomBytes(9).toString("hex")}9Q`;

export async function startProductStack(label: string, secrets: Record<string, string>): Promise<ProductStack> {
  const unlock = await acquireVmTestLock(3_600_000);
  const work = mkdtempSync(path.join(tmpdir(), `svc-${label}-`));
  const cleanups: (() => Promise<void> | void)[] = [unlock, () => rmSync(work, { recursive: true, force: true })];
  try {
    await ensureLibvirtd();
    const img = ensureProductImage();
    const scratch = createVmScratch(label);
    cleanups.unshift(() => scratch.cleanup(`${label}-`));
    const sshd: TestSshd = await startSshd();
    cleanups.unshift(() => sshd.stop());
    const tdb: TestDb = await createTestDb(label);
    cleanups.unshift(() => tdb.drop());
    const redis: TestRedis = createTestRedis(label);
    cleanups.unshift(() => redis.cleanup());
    const { vaultPass, secretsFile } = writeVaultSecrets(work, secrets);
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      USER: process.env.USER,
      LANG: process.env.LANG,
      ...stackSettings(tdb, redis, path.join(REPO_ROOT, "dags")),
      SVC_PLAYBOOKS_DIR: path.join(REPO_ROOT, "playbooks"),
      SVC_LOG_LEVEL: "info",
      SVC_LOG_FORMAT: "json",
      // A killed worker's try is taken over after this long without a heartbeat.
      SVC_ZOMBIE_AFTER_MS: "30000",
      SVC_RECONCILE_INTERVAL_MS: "1000",
      SVC_WORKER_HEARTBEAT_MS: "1000",
      SVC_WORKER_CONCURRENCY: "2",
      SVC_SSH_HOST: sshd.host,
      SVC_SSH_PORT: String(sshd.port),
      SVC_SSH_USER: sshd.user,
      SVC_SSH_KEY_PATH: sshd.keyPath,
      SVC_SSH_KNOWN_HOSTS: sshd.knownHostsPath,
      SVC_HOST_STATE_DIR: path.join(work, "tries"),
      SVC_INVENTORY_DIR: path.join(work, "inventory"),
      SVC_SECRETS_FILE: secretsFile,
      SVC_VAULT_PASSWORD_FILE: vaultPass,
      SVC_VM_IMAGES_DIR: TEST_IMAGES_DIR,
      SVC_VM_DISKS_DIR: scratch.disksDir,
      SVC_VM_DRIVER: "libvirt",
      SVC_VM_CLI: JSON.stringify([path.join(REPO_ROOT, "packages/vm/bin/svc-vm")]),
      SVC_VM_SSH_PUBKEY: scratch.pubKeyPath,
      SVC_VM_SSH_PRIVKEY: scratch.keyPath,
    };
    const log = (n: string) => path.join(work, `${n}.log`);
    const scheduler = serviceProc("scheduler", "scheduler", env, log("scheduler"));
    const workers = [1, 2].map((i) => serviceProc(`worker-${i}`, "worker", env, log(`worker-${i}`)));
    const procs = [scheduler, ...workers];
    for (const p of procs) p.start();
    cleanups.unshift(async () => {
      for (const p of procs) await p.stop(10_000);
    });
    const db = tdb.db;
    await waitFor(async () => Number((await db.selectFrom("component_heartbeat").select(db.fn.countAll().as("n")).where("component", "=", "worker").executeTakeFirst())?.n) >= 2, {
      timeoutMs: 180_000,
      intervalMs: 1000,
      what: "two workers heartbeating",
    });
    const queues: Queues = createQueues({ url: redis.url, prefix: redis.prefix });
    cleanups.unshift(() => queues.close());
    const engine = createEngineApi({
      db,
      notifier: createQueueNotifier(queues),
      dagsDir: env.SVC_DAGS_DIR!,
      catalog: defaultOperators(),
      settings: dagSettingsFromConfig(loadConfig(env)),
    });
    const logs = async (dagId: string, runId: string, taskId?: string) => {
      let q = db.selectFrom("task_log").select("line").where("dag_id", "=", dagId).where("run_id", "=", runId);
      if (taskId) q = q.where("task_id", "=", taskId);
      return (await q.orderBy("id").execute()).map((r) => r.line);
    };
    return {
      db,
      engine,
      workers,
      scheduler,
      scratch,
      inventoryDir: env.SVC_INVENTORY_DIR!,
      secrets,
      imageBuildSeconds: img.buildSeconds,
      logs,
      async run(dagId, conf, timeoutMs, onStart) {
        await waitFor(async () => !!(await db.selectFrom("dag").select("dag_id").where("dag_id", "=", dagId).executeTakeFirst()), {
          timeoutMs: 120_000,
          intervalMs: 1000,
          what: `DAG ${dagId} parsed by the scheduler`,
        });
        await engine.setPaused(dagId, false);
        const started = Date.now();
        const run = await engine.triggerDagRun(dagId, { conf });
        if (onStart) await onStart(run.dag_run_id);
        const done = await waitFor(
          async () => {
            const r = await engine.getDagRun(dagId, run.dag_run_id);
            return r.state === "success" || r.state === "failed" ? r : undefined;
          },
          { timeoutMs, intervalMs: 2000, what: `${dagId} run ${run.dag_run_id}` },
        );
        const rows = await db.selectFrom("task_instance").selectAll().where("dag_id", "=", dagId).where("run_id", "=", run.dag_run_id).execute();
        const tis = Object.fromEntries(rows.map((r) => [r.task_id, { state: r.state, try_number: r.try_number, output: r.output, worker_id: r.worker_id }]));
        if (done.state !== "success") {
          const failed = rows.filter((r) => r.state === "failed").map((r) => r.task_id);
          for (const t of failed) process.stderr.write(`--- ${dagId} ${t} log tail:\n${(await logs(dagId, run.dag_run_id, t)).slice(-40).join("\n")}\n`);
        }
        process.stdout.write(`[${dagId}] ${run.dag_run_id}: ${taskSeconds(rows)}\n`);
        return { runId: run.dag_run_id, state: String(done.state), seconds: Math.round((Date.now() - started) / 1000), tis };
      },
      serviceLogs: () => procs.map((p) => `--- ${p.name}\n${existsSync(log(p.name)) ? readFileSync(log(p.name), "utf8").slice(-4000) : ""}`).join("\n"),
      async stop() {
        for (const c of cleanups) await Promise.resolve(c()).catch(() => undefined);
      },
    };
  } catch (e) {
    for (const c of cleanups) await Promise.resolve(c()).catch(() => undefined);
    throw e;
  }
}

/** Each task's seconds (skipped ones left out) in the order they started ("configure 181.2 s (try 2)"): where a product run's time went, in the test's output. */
export function taskSeconds(rows: { task_id: string; state: string | null; try_number: number; start_date: Date | null; end_date: Date | null }[]): string {
  return rows
    .filter((r) => r.start_date && r.state !== "skipped")
    .sort((a, b) => a.start_date!.getTime() - b.start_date!.getTime())
    .map((r) => {
      const s = r.end_date ? `${((r.end_date.getTime() - r.start_date!.getTime()) / 1000).toFixed(1)} s` : r.state;
      return `${r.task_id} ${s}${r.try_number > 1 ? ` (try ${r.try_number})` : ""}`;
    })
    .join(", ");
}
