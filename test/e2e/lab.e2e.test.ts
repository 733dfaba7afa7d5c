// lab_deployment for real: one run builds a router with its isolated lab network, an identity
// server with the lab's DNS, a CA and a registry whose certificate that CA issued, each as a child
// run of the product's own workflow on a TCG VM. A worker is killed (-9) and the scheduler
// restarted during it. Checked from the host with real clients (dig, kinit, curl) against the
// products' 127.0.0.1 forwards, and from a VM on the lab network only, through the router. The
// lab's members (lab-members.ts) are tested on this lab before it is deleted: one lab for all.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import path from "node:path";
import { ensureTestImage, TEST_IMAGES_DIR, waitFor } from "@svc/testing";
import { digShort, krb5Env, runClient as run } from "./lab-clients";
import { labMemberTests } from "./lab-members";
import { forwardedPort, killWorker, startProductStack, strongPassword, type ProductStack, type RunOutcome } from "./product-stack";
import { labSsh, startHostHttp } from "./router-lab";
import { REPO_ROOT } from "./stack";

const LABEL = "labe2e";
const DOMAIN = "labe2e.example.org";
const REALM = DOMAIN.toUpperCase();
const PREFIX = "192.168.233";
const LAN = `${LABEL}-lan`;
const VM = { router: `${LABEL}-router`, identity: `${LABEL}-idm`, ca: `${LABEL}-ca`, registry: `${LABEL}-registry` };
const CLIENT = `${LABEL}-cli`;
const PASSWORD = strongPassword();
const REG_PASSWORD = strongPassword();
const TOKEN = `svc-lab-e2e-${process.pid}`;
const CONF = { lab_name: LABEL, domain: DOMAIN, lan_prefix: PREFIX };

let stack: ProductStack;
let http: Awaited<ReturnType<typeof startHostHttp>>;
let work: string;
let lab: RunOutcome;
const children: Record<string, RunOutcome> = {};
let lowestAvailableMb = Infinity;

const virsh = (...args: string[]) => spawnSync("virsh", ["-c", "qemu:///system", ...args], { encoding: "utf8" });
const labVms = () =>
  virsh("list", "--all", "--name")
    .stdout.split("\n")
    .filter((n) => n.startsWith(`${LABEL}-`))
    .sort();
const availableMb = () => Number(/MemAvailable:\s+(\d+) kB/.exec(readFileSync("/proc/meminfo", "utf8"))?.[1] ?? 0) / 1024;
const svcVm = (...args: string[]) =>
  spawnSync(
    path.join(REPO_ROOT, "packages/vm/bin/svc-vm"),
    [...args, "--images-dir", TEST_IMAGES_DIR, "--disks-dir", stack.scratch.disksDir, "--driver", "libvirt", "-o", "json"],
    { encoding: "utf8", timeout: 300_000 },
  );
const ssh = () => labSsh(stack.scratch.keyPath, () => forwardedPort(children.router_deployment!, "tcp", 22));

/** The child run a lab task triggered, as the harness reports a run (task instances by id). */
async function childOf(taskId: string): Promise<RunOutcome> {
  const r = await stack.db
    .selectFrom("dag_run")
    .select(["dag_id", "run_id", "state"])
    .where("parent_dag_id", "=", "lab_deployment")
    .where("parent_run_id", "=", lab.runId)
    .where("parent_task_id", "=", taskId)
    .executeTakeFirstOrThrow();
  const rows = await stack.db.selectFrom("task_instance").selectAll().where("dag_id", "=", r.dag_id).where("run_id", "=", r.run_id).execute();
  const tis = Object.fromEntries(rows.map((t) => [t.task_id, { state: t.state, try_number: t.try_number, output: t.output, worker_id: t.worker_id }]));
  return { runId: r.run_id, state: r.state, seconds: 0, tis };
}

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), "svc-lab-clients-"));
  stack = await startProductStack(LABEL, {
    vault_ipa_admin_password: PASSWORD,
    vault_ca_auth_key: randomBytes(32).toString("hex"),
    vault_registry_admin_password: REG_PASSWORD,
  });
  ensureTestImage();
  http = await startHostHttp(TOKEN);
}, 3_000_000);

afterAll(async () => {
  svcVm("delete", "vm", CLIENT, "-y");
  await stack?.stop();
  virsh("net-destroy", LAN);
  virsh("net-undefine", LAN);
  for (const ext of ["xml", "created"]) rmSync(`/var/lib/libvirt/svc-net-${LAN}.${ext}`, { force: true });
  await http?.close();
  if (work) rmSync(work, { recursive: true, force: true });
}, 300_000);

test("one lab_deployment run builds the router, identity server, CA and registry as linked child runs, one VM each, although a worker was killed (-9) and the scheduler restarted", async () => {
  const sampler = setInterval(() => (lowestAvailableMb = Math.min(lowestAvailableMb, availableMb())), 2000);
  const before = availableMb();
  let killed = 0;
  try {
    lab = await stack.run("lab_deployment", CONF, 4_200_000, async () => {
      // While the identity server's role runs in its child run: kill that try's worker, then
      // restart the scheduler. The lab's own tasks hold no worker while they wait.
      const ti = await waitFor(
        async () =>
          await stack.db
            .selectFrom("task_instance")
            .select(["worker_id"])
            .where("dag_id", "=", "identity_deployment")
            .where("task_id", "=", "configure")
            .where("state", "=", "running")
            .executeTakeFirst(),
        { timeoutMs: 3_000_000, intervalMs: 2000, what: "the identity server's configure task running" },
      );
      killed = await killWorker(stack, ti.worker_id!);
      await stack.scheduler.stop();
      stack.scheduler.start();
    });
  } finally {
    clearInterval(sampler);
  }
  process.stdout.write(
    `[lab] lab_deployment create on debian12 (TCG): ${lab.state} in ${lab.seconds} s; host memory in use at peak ${Math.round(before - lowestAvailableMb)} MiB above the start\n`,
  );
  expect(killed).toBeGreaterThan(0);
  expect(lab.state).toBe("success");
  for (const [task, dag] of [
    ["router", "router_deployment"],
    ["identity", "identity_deployment"],
    ["ca", "ca_deployment"],
    ["registry", "registry_deployment"],
  ] as const) {
    expect(lab.tis[task]).toMatchObject({ state: "success", try_number: 1 });
    const child = await childOf(task);
    expect({ task, state: child.state }).toEqual({ task, state: "success" });
    children[dag] = child;
  }
  const childRuns = await stack.db.selectFrom("dag_run").select("dag_id").where("parent_run_id", "=", lab.runId).execute();
  expect(childRuns).toHaveLength(4);
  expect(children.identity_deployment!.tis.configure!.try_number).toBeGreaterThan(1);
  expect(labVms()).toEqual([VM.ca, VM.identity, VM.registry, VM.router].sort());
}, 4_300_000);

test("the products took their fixed leases on the lab network from the router's DHCP", async () => {
  const leases = (await ssh().router("cat /var/lib/misc/dnsmasq.leases")).stdout;
  for (const [name, ip] of [
    [VM.identity, `${PREFIX}.10`],
    [VM.ca, `${PREFIX}.11`],
    [VM.registry, `${PREFIX}.12`],
  ]) {
    expect(leases).toMatch(new RegExp(`^\\d+ \\S+ ${ip!.replace(/\./g, "\\.")} ${name} `, "m"));
  }
}, 300_000);

test("from the host: the lab DNS answers for the registry's name and kinit admin@REALM works, through the identity server's forwards", () => {
  const idm = children.identity_deployment!;
  const dig = (name: string) => digShort(forwardedPort(idm, "tcp", 53), name, "A");
  expect(dig(`${VM.registry}.${DOMAIN}`)).toBe(`${PREFIX}.12`);
  expect(dig(`${VM.ca}.${DOMAIN}`)).toBe(`${PREFIX}.11`);
  const env = krb5Env(work, REALM, forwardedPort(idm, "tcp", 88));
  const kinit = run("kinit", [`admin@${REALM}`], { input: `${PASSWORD}\n`, env });
  expect({ status: kinit.status, stderr: kinit.stderr }).toEqual({ status: 0, stderr: "" });
  expect(run("klist", [], { env }).stdout).toContain(`krbtgt/${REALM}@${REALM}`);
});

test("from the host: the registry's certificate verifies against the lab CA's root, and the registry asks for its credentials", () => {
  const root = path.join(stack.inventoryDir, "pki", VM.ca, "root.pem");
  expect(existsSync(root)).toBe(true);
  const port = forwardedPort(children.registry_deployment!, "tcp", 5000);
  const name = `${VM.registry}.${DOMAIN}`;
  // The registry's /v2/ over TLS verified against the lab CA's root, with `auth` curl options.
  const v2 = (...auth: string[]) =>
    run("curl", [
      "-sS",
      "-o",
      "/dev/null",
      "-w",
      "%{http_code}",
      "--max-time",
      "30",
      "--cacert",
      root,
      "--resolve",
      `${name}:${port}:127.0.0.1`,
      ...auth,
      `https://${name}:${port}/v2/`,
    ]);
  const r = v2();
  expect({ code: r.stdout, stderr: r.stderr }).toEqual({ code: "401", stderr: "" });
  const authed = v2("-u", `admin:${REG_PASSWORD}`);
  expect(authed.stdout).toBe("200");
});

test("a VM on the lab network only reaches the host's HTTP server through the router and resolves the registry's name through the lab DNS", async () => {
  const made = svcVm("create", "vm", CLIENT, "-i", "debian-test", "-P", "memory=384", "-P", `nets=[${LAN}]`, "--ssh-key", stack.scratch.pubKeyPath);
  expect(made.status).toBe(0);
  const mac = (JSON.parse(made.stdout) as { macs: string[] }).macs[0]!;
  const ip = await waitFor(
    async () => new RegExp(`^\\d+ ${mac} (${PREFIX.replace(/\./g, "\\.")}\\.\\d+) `, "m").exec((await ssh().router("cat /var/lib/misc/dnsmasq.leases")).stdout ?? "")?.[1],
    {
      timeoutMs: 600_000,
      intervalMs: 5000,
      what: `a DHCP lease for ${CLIENT} (${mac})`,
    },
  );
  const fetched = await waitFor(
    async () => {
      const r = await ssh().client(ip, `python3 -c 'import urllib.request; print(urllib.request.urlopen("http://10.0.2.2:${http.port}/", timeout=20).read().decode())'`);
      return r.status === 0 ? r.stdout.trim() : undefined;
    },
    { timeoutMs: 300_000, intervalMs: 5000, what: `${CLIENT} fetching from the host through the router` },
  );
  expect(fetched).toBe(TOKEN);
  // The router hands out itself as the resolver and sends the lab domain to the identity server.
  const resolved = await ssh().client(
    ip,
    `printf 'nameserver %s\\noptions timeout:3 attempts:3\\n' "$(sed -n 's/^DNS=//p' /run/systemd/netif/leases/* | head -n1)" >/etc/resolv.conf && getent ahostsv4 ${VM.registry}.${DOMAIN} | head -n1`,
  );
  expect(resolved.stdout).toMatch(new RegExp(`^${PREFIX.replace(/\./g, "\\.")}\\.12 `));
  expect(svcVm("delete", "vm", CLIENT, "-y").status).toBe(0);
}, 1_000_000);

labMemberTests({
  label: LABEL,
  domain: DOMAIN,
  prefix: PREFIX,
  adminPassword: PASSWORD,
  stack: () => stack,
  child: (dagId) => children[dagId]!,
  work: () => work,
  leases: async () => (await ssh().router("cat /var/lib/misc/dnsmasq.leases")).stdout,
});

test("delete tears the lab down in reverse order and leaves no VM, network, disk or host record", async () => {
  const del = await stack.run("lab_deployment", { ...CONF, action: "delete" }, 1_800_000);
  expect(del.state).toBe("success");
  const ended = await stack.db.selectFrom("dag_run").select(["dag_id", "end_date"]).where("parent_run_id", "=", del.runId).orderBy("end_date").execute();
  expect(ended.map((r) => r.dag_id)).toEqual(["registry_deployment", "ca_deployment", "identity_deployment", "router_deployment"]);
  expect(labVms()).toEqual([]);
  expect(virsh("net-info", LAN).status).not.toBe(0);
  for (const vm of Object.values(VM)) expect(existsSync(path.join(stack.scratch.disksDir, vm))).toBe(false);
  const records = path.join(stack.inventoryDir, "products");
  const left = existsSync(records) ? spawnSync("find", [records, "-type", "f"], { encoding: "utf8" }).stdout.trim() : "";
  expect(left).toBe("");
}, 1_900_000);
