import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig, type SvcConfig } from "@svc/config";
import { createEngineApi, createQueueNotifier, dagSettingsFromConfig, startEngineRuntime, syncDagFolder, type EngineRuntime } from "@svc/engine";
import { runCli } from "@svc/hosts/cli";
import { createHostRouting } from "@svc/hosts/routing";
import { silentLogger } from "@svc/logger";
import { defaultOperators } from "@svc/operators";
import { createQueues } from "@svc/queue";
import {
  acquireVmTestLock,
  createTestDb,
  createTestRedis,
  ensureLibvirtd,
  ensureTestImage,
  startSecondHost,
  TEST_IMAGE_NAME,
  waitFor,
  type SecondHost,
  type TestDb,
} from "@svc/testing";
import { engineTestEnv } from "./engine-env";

// Two hypervisor hosts, each a libvirtd of its own (a private mount namespace) reached over its own
// sshd on 127.0.0.1, added with svc-hosts; a scheduler, and two workers, one serving only `a` and
// one only `b`, each with the real router (probes every 10 s). VMs are created with wait: false:
// placement, routing and deletion are the point, not the guests' boot.
const P = `th${process.pid % 100000}`;
const DAG = `
dag_id: two_hosts
params:
  action: {type: string, enum: [create, delete], default: create}
  name: {type: string}
  host: {type: string, default: ""}
tasks:
  - task_id: create
    operator: vm_create
    when: "{{ params.action == 'create' }}"
    args: {name: "{{ params.name }}", image: ${TEST_IMAGE_NAME}, memory_mb: 128, cpus: 1, host: "{{ params.host or none }}"}
  - task_id: delete
    operator: vm_delete
    when: "{{ params.action == 'delete' }}"
    args: {name: "{{ params.name }}"}
`;

let hosts: Record<"a" | "b", SecondHost>;
let tdb: TestDb;
let release: () => void;
let dagsDir: string;
let config: SvcConfig;
const runtimes: EngineRuntime[] = [];
const routers: ReturnType<typeof createHostRouting>[] = [];
let api: ReturnType<typeof createEngineApi>;
let redis: ReturnType<typeof createTestRedis>;
let queues: ReturnType<typeof createQueues>;

async function hostsCli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await runCli(argv, { out: (t) => (out += t), err: (t) => (err += t), env: { DATABASE_URL: tdb.url, SVC_LOG_LEVEL: "silent" } });
  return { code, out, err };
}

async function run(runId: string, conf: Record<string, unknown>) {
  await api.triggerDagRun("two_hosts", { runId, conf });
  return ended(runId);
}

function ended(runId: string, timeoutMs = 240_000) {
  return waitFor(
    async () => {
      const r = await tdb.db.selectFrom("dag_run").select("state").where("dag_id", "=", "two_hosts").where("run_id", "=", runId).executeTakeFirst();
      return r && (r.state === "success" || r.state === "failed") ? r.state : undefined;
    },
    { timeoutMs, what: `run ${runId}` },
  );
}

const ti = (runId: string, taskId: string) =>
  tdb.db.selectFrom("task_instance").selectAll().where("dag_id", "=", "two_hosts").where("run_id", "=", runId).where("task_id", "=", taskId).executeTakeFirstOrThrow();
const logOf = async (runId: string, taskId: string) =>
  (await tdb.db.selectFrom("task_log").select("line").where("dag_id", "=", "two_hosts").where("run_id", "=", runId).where("task_id", "=", taskId).orderBy("id").execute()).map(
    (r) => r.line,
  );

beforeAll(async () => {
  release = await acquireVmTestLock();
  await ensureLibvirtd();
  ensureTestImage();
  const [a, b] = await Promise.all([startSecondHost({ name: "a" }), startSecondHost({ name: "b" })]);
  hosts = { a, b };
  tdb = await createTestDb("twohosts");
  redis = createTestRedis("twohosts");
  dagsDir = mkdtempSync(path.join(os.tmpdir(), "svc-twohosts-"));
  writeFileSync(path.join(dagsDir, "two_hosts.yaml"), DAG);
  // The VM CLI of this checkout on both hosts (they are this machine), the key injected into VMs.
  config = {
    ...loadConfig({
      ...engineTestEnv(tdb, redis, dagsDir),
      SVC_VM_CLI: JSON.stringify(a.vmCli),
      SVC_VM_SSH_PUBKEY: `${a.keyPath}.pub`,
    }),
    reconcileIntervalMs: 2000,
  };
  for (const h of [a, b]) {
    const added = await hostsCli(...h.addArgs());
    expect(added).toMatchObject({ code: 0 });
  }
  queues = createQueues({ url: redis.url, prefix: redis.prefix });
  const operators = defaultOperators();
  await syncDagFolder({ db: tdb.db, dagsDir, catalog: operators, settings: dagSettingsFromConfig(config), notifier: createQueueNotifier(queues) });
  api = createEngineApi({ db: tdb.db, notifier: createQueueNotifier(queues), dagsDir, catalog: operators, settings: dagSettingsFromConfig(config) });
  await api.setPaused("two_hosts", false);
  runtimes.push(startEngineRuntime({ db: tdb.db, config, logger: silentLogger(), operators: defaultOperators(), worker: false }));
  for (const served of ["a", "b"]) {
    const r = createHostRouting({ db: tdb.db, logger: silentLogger(), hosts: [served] });
    routers.push(r);
    await r.ready();
    runtimes.push(startEngineRuntime({ db: tdb.db, config, logger: silentLogger(), operators: defaultOperators(), scheduler: false, hosts: r }));
  }
}, 600_000);

afterAll(async () => {
  for (const rt of runtimes) await rt.stop().catch(() => undefined);
  for (const r of routers) await r.close().catch(() => undefined);
  await queues?.close();
  await Promise.all(Object.values(hosts ?? {}).map((h) => h.stop()));
  await redis?.cleanup();
  await tdb?.drop();
  if (dagsDir) rmSync(dagsDir, { recursive: true, force: true });
  release?.();
}, 600_000);

const setHost = (name: string, set: Record<string, unknown>) => tdb.db.updateTable("hypervisor_host").set(set).where("name", "=", name).execute();

describe("two hypervisor hosts", () => {
  test("placement follows free capacity: a host whose memory reserve is above its total gets no VM, with its reason in the log", async () => {
    await setHost("a", { reserve_memory_mb: 100_000_000 });
    expect(await run("p1", { name: `${P}-p1` })).toBe("success");
    expect((await ti("p1", "create")).host).toBe("b");
    expect(hosts.b.domains()).toContain(`${P}-p1`);
    expect(hosts.a.domains()).not.toContain(`${P}-p1`);
    const log = await logOf("p1", "create");
    expect(log).toContain("placed on 'b' (spread)");
    expect(log.find((l) => l.startsWith("  a: "))).toMatch(/^ {2}a: memory: 128 MiB asked, -\d+ MiB free after a 100000000 MiB reserve/);
    await setHost("a", { reserve_memory_mb: 512 });
  });

  test("spread puts the next VM on the emptier host; a host arg pins a VM to the other", async () => {
    // The monitors' next round sees p1 on b; placement also counts it while it is in flight.
    expect(await run("p2", { name: `${P}-p2` })).toBe("success");
    expect((await ti("p2", "create")).host).toBe("a");
    expect(await run("p3", { name: `${P}-p3`, host: "b" })).toBe("success");
    expect((await ti("p3", "create")).host).toBe("b");
    expect(await logOf("p3", "create")).toContain("host 'b' pinned by the task's host arg");
    expect(hosts.b.domains()).toEqual(expect.arrayContaining([`${P}-p1`, `${P}-p3`]));
    expect(hosts.a.domains()).toEqual([`${P}-p2`]);
  });

  test("a drained host gets no new VM, even where spread would choose it", async () => {
    expect(await hostsCli("drain", "a")).toMatchObject({ code: 0 });
    expect(await run("p4", { name: `${P}-p4` })).toBe("success");
    expect((await ti("p4", "create")).host).toBe("b");
    expect((await logOf("p4", "create")).find((l) => l.startsWith("  a: "))).toMatch(/^ {2}a: draining/);
    expect(await hostsCli("activate", "a")).toMatchObject({ code: 0 });
  });

  test("a host whose sshd stopped is down within 30 s; its tries wait queued, none fails, and run when it is back", async () => {
    await hosts.b.stopSshd();
    const routerB = routers[1]!;
    await waitFor(async () => routerB.status().b?.up === false, { timeoutMs: 30_000, intervalMs: 250, what: "host b seen down" });
    await api.triggerDagRun("two_hosts", { runId: "p5", conf: { name: `${P}-p5`, host: "b" } });
    await waitFor(async () => (await ti("p5", "create").catch(() => undefined))?.host === "b", { timeoutMs: 30_000, what: "p5 routed to b" });
    await new Promise((r) => setTimeout(r, 5000));
    const waiting = await ti("p5", "create");
    expect([waiting.state, waiting.try_number]).toEqual(["queued", 1]);
    await hosts.b.startSshd();
    expect(await ended("p5")).toBe("success");
    expect((await ti("p5", "create")).try_number).toBe(1);
    expect(hosts.b.domains()).toContain(`${P}-p5`);
  });

  test("svc-vm list vm --all-hosts shows every VM with its host", () => {
    const bin = path.resolve(__dirname, "../../packages/vm/bin/svc-vm");
    const r = spawnSync(process.execPath, [bin, "list", "vm", "--all-hosts", "-o", "json"], {
      encoding: "utf8",
      env: { ...process.env, DATABASE_URL: tdb.url, SVC_VM_CLI: JSON.stringify(hosts.a.vmCli) },
    });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const { vms: rows, unavailable } = JSON.parse(r.stdout) as { vms: { host: string; name: string }[]; unavailable: unknown[] };
    expect(unavailable).toEqual([]);
    // Other test files share this machine's own libvirtd (host `local`); hosts a and b hold only this file's VMs.
    const own = rows.filter((v) => v.name.startsWith(`${P}-`));
    expect(own.map((v) => `${v.host}/${v.name}`).sort()).toEqual([`a/${P}-p2`, `b/${P}-p1`, `b/${P}-p3`, `b/${P}-p4`, `b/${P}-p5`]);
    expect(rows.filter((v) => !own.includes(v) && v.host !== "local")).toEqual([]);
  });

  test("deleting a VM by name finds the host that holds it", async () => {
    // The monitors' rounds record p1..p5 on their hosts.
    await waitFor(
      async () => {
        const rows = await tdb.db.selectFrom("hypervisor_host").select(["name", "last_probe"]).execute();
        const on = (h: string) => ((rows.find((r) => r.name === h)?.last_probe as { vms?: { name: string }[] } | null)?.vms ?? []).map((v) => v.name);
        return on("b").includes(`${P}-p5`) && on("a").includes(`${P}-p2`);
      },
      { timeoutMs: 30_000, what: "probes listing the VMs" },
    );
    expect(await run("d2", { action: "delete", name: `${P}-p2` })).toBe("success");
    expect((await ti("d2", "delete")).host).toBe("a");
    expect((await logOf("d2", "delete")).find((l) => l.startsWith(`VM '${P}-p2' (arg name) is on host 'a' (in its probe of `))).toBeDefined();
    expect(hosts.a.domains()).not.toContain(`${P}-p2`);
    expect(await run("d1", { action: "delete", name: `${P}-p1` })).toBe("success");
    expect((await ti("d1", "delete")).host).toBe("b");
    expect(hosts.b.domains()).not.toContain(`${P}-p1`);
  });

  test("a worker serving only host a never ran a try of host b, and the other way round", async () => {
    const beats = await tdb.db.selectFrom("component_heartbeat").select(["instance_id", "info"]).where("component", "=", "worker").execute();
    const serving = (h: string) => beats.filter((b) => Object.keys((b.info as { hosts?: object }).hosts ?? {}).includes(h)).map((b) => b.instance_id);
    expect([serving("a").length, serving("b").length]).toEqual([1, 1]);
    const lines = await tdb.db.selectFrom("task_log").select("line").where("dag_id", "=", "two_hosts").where("line", "like", "running on host %").execute();
    expect(lines.length).toBeGreaterThanOrEqual(7);
    for (const { line } of lines) {
      const m = /^running on host (\S+) \(worker (\S+)\)$/.exec(line);
      expect(m).not.toBeNull();
      expect(serving(m![1]!)).toEqual([m![2]]);
    }
  });
});
