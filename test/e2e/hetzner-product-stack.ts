// A product DAG on a cloud host, for the cloud product e2e files: a Hetzner host (a fake of its API
// whose servers are real local TCG VMs from the debian12 image, reached through the host's fake
// bastion on 127.0.0.1), its secrets vault-encrypted, the DAGs synced and unpaused, the scheduler
// and a routed worker. The configured host is `local`: the cloud host's host side (records, roots).
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadConfig } from "@svc/config";
import { createEngineApi, createQueueNotifier, dagSettingsFromConfig, syncDagFolder } from "@svc/engine";
import { createHostService } from "@svc/hosts";
import { defaultOperators } from "@svc/operators";
import { createQueues } from "@svc/queue";
import { acquireVmTestLock, createTestDb, createTestRedis, createVmScratch, ensureLibvirtd, ensureProductImage, waitFor, type TestDb, type VmScratch } from "@svc/testing";
import { HetznerDriver } from "../../packages/vm/src/hetzner/driver";
import { startFakeBastion, type FakeBastion } from "../../packages/vm/test/fake-bastion";
import { startHetznerFake, type HetznerFake } from "../../packages/vm/test/hetzner-fake";
import { localMachines } from "../../packages/vm/test/hetzner-fake-machines";
import { engineTestEnv, startCloudEngine } from "./engine-env";
import { taskSeconds, writeVaultSecrets } from "./product-stack";
import { REPO_ROOT } from "./stack";

export const CLOUD_HOST = "hz-test";

export interface HetznerProductStack {
  tdb: TestDb;
  fake: HetznerFake;
  bastion: FakeBastion;
  /** The test's scratch directory; the configured host's SVC_INVENTORY_DIR is `inventoryDir`. */
  work: string;
  inventoryDir: string;
  /** The libvirt domain of the fake's server `vm` (its machines carry the stack's prefix). */
  domain(vm: string): string;
  /** Trigger a run and wait for it to end: its state; the failed tasks' log tails go to stderr. */
  run(dag: string, runId: string, conf: Record<string, unknown>, timeoutMs: number): Promise<string>;
  states(dag: string, runId: string): Promise<Record<string, string | null>>;
  logs(dag: string, runId: string, taskId: string): Promise<string[]>;
  stop(): Promise<void>;
}

export async function startHetznerProductStack(o: { label: string; dags: string[]; secrets: Record<string, string>; memoryMb: number }): Promise<HetznerProductStack> {
  const unlock = await acquireVmTestLock(3_600_000);
  const prefix = `${o.label}${process.pid % 100000}`;
  const cleanups: (() => unknown)[] = [unlock];
  const stop = async () => {
    for (const c of cleanups.splice(0).reverse()) await Promise.resolve(c()).catch(() => undefined);
  };
  try {
    await ensureLibvirtd();
    const img = ensureProductImage();
    const scratch: VmScratch = createVmScratch(o.label);
    cleanups.push(() => scratch.cleanup(`${prefix}-`));
    const work = mkdtempSync(path.join(tmpdir(), `svc-${o.label}-`));
    cleanups.push(() => rmSync(work, { recursive: true, force: true }));
    const dagsDir = path.join(work, "dags");
    const inventoryDir = path.join(work, "inventory");
    mkdirSync(dagsDir, { recursive: true });
    mkdirSync(inventoryDir, { recursive: true });
    for (const d of o.dags) copyFileSync(path.join(REPO_ROOT, "dags", `${d}.yaml`), path.join(dagsDir, `${d}.yaml`));
    const machines = localMachines({ imagesDir: img.imagesDir, disksDir: scratch.disksDir, image: img.image, prefix, memoryMb: o.memoryMb, cpus: 2 });
    const fake = await startHetznerFake(`hc-${o.label}-token`, { machines });
    cleanups.push(() => fake.stop());
    const bastion = await startFakeBastion(scratch.pubKeyPath, (address, port) => fake.sshPortOf(address, port));
    cleanups.push(() => bastion.stop());
    const { vaultPass, secretsFile: secrets } = writeVaultSecrets(work, o.secrets);
    const tdb = await createTestDb(o.label);
    cleanups.push(() => tdb.drop());
    const redis = createTestRedis(o.label);
    cleanups.push(() => redis.cleanup());
    const config = {
      ...loadConfig({
        ...engineTestEnv(tdb, redis, dagsDir),
        SVC_SSH_HOST: "local",
        SVC_INVENTORY_DIR: inventoryDir,
        SVC_PLAYBOOKS_DIR: path.join(REPO_ROOT, "playbooks"),
        SVC_SECRETS_FILE: secrets,
        SVC_VAULT_PASSWORD_FILE: vaultPass,
        SVC_VM_DEFAULT_NETWORK: "default",
      }),
      reconcileIntervalMs: 2000,
    };
    await createHostService({ db: tdb.db }).addCloud(
      {
        name: CLOUD_HOST,
        provider: "hetzner",
        settings: { location: "fsn1", endpoint: fake.endpoint, bastion: `root@127.0.0.1:${bastion.port}`, ssh_user: "root" },
        key_path: scratch.keyPath,
        bastion_key: bastion.hostKey,
      },
      { probe: false, actor: "test" },
    );
    const queues = createQueues({ url: redis.url, prefix: redis.prefix });
    cleanups.push(() => queues.close());
    const operators = defaultOperators();
    const settings = dagSettingsFromConfig(config);
    await syncDagFolder({ db: tdb.db, dagsDir, catalog: operators, settings, notifier: createQueueNotifier(queues) });
    const api = createEngineApi({ db: tdb.db, notifier: createQueueNotifier(queues), dagsDir, catalog: operators, settings });
    for (const d of o.dags) await api.setPaused(d, false);
    const engine = await startCloudEngine(
      tdb.db,
      config,
      async (r) => new HetznerDriver({ location: r.provider_settings.location!, endpoint: r.provider_settings.endpoint!, token: fake.token, sshUser: "root", pollMs: 500 }),
    );
    cleanups.push(() => engine.stop());
    const tis = (dag: string, runId: string) => tdb.db.selectFrom("task_instance").selectAll().where("dag_id", "=", dag).where("run_id", "=", runId).execute();
    const logs = async (dag: string, runId: string, taskId: string) =>
      (await tdb.db.selectFrom("task_log").select("line").where("dag_id", "=", dag).where("run_id", "=", runId).where("task_id", "=", taskId).orderBy("id").execute()).map(
        (l) => l.line,
      );
    const run = async (dag: string, runId: string, conf: Record<string, unknown>, timeoutMs: number) => {
      const started = Date.now();
      await api.triggerDagRun(dag, { runId, conf });
      const state = await waitFor(
        async () => {
          const r = await tdb.db.selectFrom("dag_run").select("state").where("dag_id", "=", dag).where("run_id", "=", runId).executeTakeFirst();
          return r && (r.state === "success" || r.state === "failed") ? r.state : undefined;
        },
        { timeoutMs, intervalMs: 2000, what: `run ${runId}` },
      );
      const rows = await tis(dag, runId);
      process.stdout.write(`[${o.label}] ${dag} ${runId}: ${state} in ${Math.round((Date.now() - started) / 1000)} s: ${taskSeconds(rows)}\n`);
      for (const t of rows.filter((r) => r.state === "failed")) process.stderr.write(`--- ${t.task_id}:\n${(await logs(dag, runId, t.task_id)).slice(-40).join("\n")}\n`);
      return state;
    };
    return {
      tdb,
      fake,
      bastion,
      work,
      inventoryDir,
      domain: (vm) => `${prefix}-${vm}`,
      run,
      states: async (dag, runId) => Object.fromEntries((await tis(dag, runId)).map((t) => [t.task_id, t.state])),
      logs,
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}
