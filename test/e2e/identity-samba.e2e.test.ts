// identity_deployment on Debian 12 for real: a Samba AD DC made by the workflow on a TCG VM, proven
// from the host by real clients (dig, kinit, ldapsearch) against the VM's forwards on 127.0.0.1.
// A worker is killed (-9) while the product role runs; a second create changes nothing; delete
// leaves nothing behind; no password reaches a log line or a row.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { waitFor } from "@svc/testing";
import { digShort, krb5Env, runClient as run } from "./lab-clients";
import { forwardedPort, startProductStack, strongPassword, type ProductStack, type RunOutcome } from "./product-stack";

const LABEL = "idme2e";
const VM = `${LABEL}-dc`;
const DOMAIN = "corp.example.org";
const REALM = "CORP.EXAMPLE.ORG";
const BASE_DN = "DC=corp,DC=example,DC=org";
const PASSWORD = strongPassword();
// A documentation address (RFC 5737): only ever an answer in DNS, never a destination.
const RECORD = { name: "registry", address: "192.0.2.10" };
const CONF = { vm_name: VM, domain: DOMAIN, image: "debian12", nets: ["user"], memory_mb: 1536, cpus: 2, disk_gb: 4, ssh_wait_timeout: 1200, dns_records: [RECORD] };
const DAG = "identity_deployment";

let stack: ProductStack;
let work: string;
let created: RunOutcome;
const port = (proto: "tcp" | "udp", guest: number): number => forwardedPort(created, proto, guest);
const dig = (name: string, type: string) => digShort(port("tcp", 53), name, type);
const domstate = () => spawnSync("virsh", ["-c", "qemu:///system", "domstate", VM], { encoding: "utf8" });
const svcVms = () =>
  spawnSync("virsh", ["-c", "qemu:///system", "list", "--all", "--name"], { encoding: "utf8" })
    .stdout.split("\n")
    .filter((n) => n.startsWith(`${LABEL}-`));

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), "svc-idm-clients-"));
  stack = await startProductStack(LABEL, { vault_ipa_admin_password: PASSWORD });
  process.stdout.write(`[identity] debian12 image ready in ${stack.imageBuildSeconds} s\n`);
}, 3_000_000);

afterAll(async () => {
  await stack?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
}, 300_000);

test("create on debian12 ends success with one server although the worker running the product role was killed (-9)", async () => {
  let killedPid = 0;
  created = await stack.run(DAG, CONF, 3_000_000, async (runId) => {
    // Wait for the role's own tasks, then kill the worker whose try runs the play.
    await waitFor(async () => (await stack.logs(DAG, runId, "configure")).some((l) => /TASK \[identity_server : /.test(l)), {
      timeoutMs: 2_400_000,
      intervalMs: 2000,
      what: "the identity_server role running",
    });
    const ti = await stack.db
      .selectFrom("task_instance")
      .select(["worker_id"])
      .where("dag_id", "=", DAG)
      .where("run_id", "=", runId)
      .where("task_id", "=", "configure")
      .executeTakeFirstOrThrow();
    const hb = await stack.db.selectFrom("component_heartbeat").select("pid").where("component", "=", "worker").where("instance_id", "=", ti.worker_id!).executeTakeFirstOrThrow();
    const victim = stack.workers.find((w) => w.pid() === hb.pid);
    expect(victim).toBeDefined();
    killedPid = hb.pid;
    await victim!.kill9();
  });
  process.stdout.write(`[identity] create on debian12 (TCG): ${created.state} in ${created.seconds} s\n`);
  expect(killedPid).toBeGreaterThan(0);
  expect(created.state).toBe("success");
  expect(created.tis.configure).toMatchObject({ state: "success" });
  expect(created.tis.configure!.try_number).toBeGreaterThan(1);
  expect(created.tis.cleanup_on_failure!.state).toBe("skipped");
  expect(svcVms()).toEqual([VM]);
  expect(domstate().stdout.trim()).toBe("running");
}, 3_100_000);

test("DNS answers from the host through the forward: the SRV records, the server's own A record and a record the workflow added", () => {
  expect(dig(`_ldap._tcp.${DOMAIN}`, "SRV")).toMatch(new RegExp(`^0 100 389 ${VM}\\.${DOMAIN.replace(/\./g, "\\.")}\\.$`, "m"));
  expect(dig(`_kerberos._udp.${DOMAIN}`, "SRV")).toMatch(new RegExp(`^0 100 88 ${VM}\\.${DOMAIN.replace(/\./g, "\\.")}\\.$`, "m"));
  // The server's own record: its guest address (never 127.x), as a lookup answer only.
  expect(dig(`${VM}.${DOMAIN}`, "A")).toMatch(/^(?!127\.)\d+\.\d+\.\d+\.\d+$/);
  expect(dig(`${RECORD.name}.${DOMAIN}`, "A")).toBe(RECORD.address);
});

test("kinit admin@REALM with the vault password succeeds against the forwarded KDC; a wrong password fails", () => {
  const kdc = port("tcp", 88);
  const env = krb5Env(work, REALM, kdc);
  const good = run("kinit", [`admin@${REALM}`], { input: `${PASSWORD}\n`, env });
  expect(good.stderr).not.toMatch(/error|failed/i);
  expect(good.status).toBe(0);
  expect(run("klist", [], { env }).stdout).toContain(`krbtgt/${REALM}@${REALM}`);
  const bad = run("kinit", [`admin@${REALM}`], { input: `${PASSWORD}x\n`, env: { ...env, KRB5CCNAME: `FILE:${path.join(work, "ccache-bad")}` } });
  expect(bad.status).not.toBe(0);
  expect(bad.stderr).toMatch(/incorrect|preauthentication failed/i);
});

test("an LDAPS search bound as the admin returns the domain's base entry", () => {
  const pw = path.join(work, "ldap-pass");
  writeFileSync(pw, PASSWORD, { mode: 0o600 });
  const r = run("ldapsearch", ["-LLL", "-x", "-H", `ldaps://127.0.0.1:${port("tcp", 636)}`, "-D", `admin@${REALM}`, "-y", pw, "-b", BASE_DN, "-s", "base", "dn"], {
    // Samba's certificate is self-signed and names the server, not 127.0.0.1.
    env: { LDAPTLS_REQCERT: "never" },
  });
  expect(r.stderr).toBe("");
  expect(r.stdout.trim()).toBe(`dn: ${BASE_DN}`);
  const anon = run("ldapsearch", ["-LLL", "-x", "-H", `ldaps://127.0.0.1:${port("tcp", 636)}`, "-b", BASE_DN, "-s", "base", "dn"], { env: { LDAPTLS_REQCERT: "never" } });
  expect(anon.stdout).not.toContain(`dn: ${BASE_DN}`);
});

test("infrastructure_health_check finds the server by its record and reports DNS and Kerberos taking connections", async () => {
  expect(existsSync(path.join(stack.inventoryDir, "products", `${VM}.json`))).toBe(true);
  const h = await stack.run("infrastructure_health_check", { checks: ["products"] }, 900_000);
  expect(h.state).toBe("success");
  const lines = (await stack.logs("infrastructure_health_check", h.runId, "collect_findings")).join("\n");
  expect(lines).toContain(`FINDING ok products: identity ${VM} DNS port takes connections`);
  expect(lines).toContain(`FINDING ok products: identity ${VM} Kerberos port takes connections`);
}, 1_000_000);

test("a second create with the same params adopts the server and its role changes nothing", async () => {
  const again = await stack.run(DAG, CONF, 2_400_000);
  process.stdout.write(`[identity] second create: ${again.state} in ${again.seconds} s\n`);
  expect(again.state).toBe("success");
  expect(again.tis.create_vm!.output).toMatchObject({ name: VM, created: false, adopted: true });
  expect(again.tis.configure!.output).toMatchObject({ changed: 0, failed: 0 });
  expect(svcVms()).toEqual([VM]);
}, 2_500_000);

test("no password reaches a task log line, a run row, a task output or a service log", async () => {
  const runs = await stack.db.selectFrom("dag_run").selectAll().where("dag_id", "=", DAG).execute();
  const tis = await stack.db.selectFrom("task_instance").selectAll().where("dag_id", "=", DAG).execute();
  const lines = (await stack.db.selectFrom("task_log").select("line").execute()).map((r) => r.line);
  expect(lines.length).toBeGreaterThan(50);
  const all = [JSON.stringify(runs), JSON.stringify(tis), lines.join("\n"), stack.serviceLogs()].join("\n");
  expect(all.includes(PASSWORD)).toBe(false);
});

test("delete removes the VM, its disks and its host-side records", async () => {
  const del = await stack.run(DAG, { action: "delete", vm_name: VM, domain: DOMAIN }, 600_000);
  expect(del.state).toBe("success");
  expect(del.tis.delete_vm!.state).toBe("success");
  expect(del.tis.remove_record!.state).toBe("success");
  expect(del.tis.remove_product!.state).toBe("success");
  expect(existsSync(path.join(stack.inventoryDir, "products", `${VM}.json`))).toBe(false);
  expect(domstate().status).not.toBe(0);
  expect(existsSync(path.join(stack.scratch.disksDir, VM))).toBe(false);
  expect(svcVms()).toEqual([]);
}, 700_000);
