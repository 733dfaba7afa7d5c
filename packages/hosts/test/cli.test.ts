import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { createTestDb, freePort, startSshd, type TestDb, type TestSshd } from "@svc/testing";
import { runCli } from "../src/cli/run";
import { defineSvcDomain } from "./domain";

// svc-hosts against a real Postgres and two private sshds on this machine: `local` reaches
// qemu:///system through the first; the host the tests add reaches libvirt's test driver
// (test:///default, a fake hypervisor in memory: 16 CPUs, one domain not made by svc) through the second.
// Each verb that contacts a host runs a probe of about ten SSH commands; on a loaded 2-core machine
// one command over SSH has been seen to take 2-4 s, so a verb can need more than the default minute.
jest.setTimeout(240_000);

let tdb: TestDb;
let one: TestSshd;
let two: TestSshd;
let dir: string;
let env: Record<string, string>;

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string; json: () => any }> {
  let out = "";
  let err = "";
  const code = await runCli(argv, { out: (t) => (out += `${t}\n`), err: (t) => (err += `${t}\n`), env });
  return { code, out, err, json: () => JSON.parse(out) };
}

beforeAll(async () => {
  tdb = await createTestDb("hostscli");
  [one, two] = await Promise.all([startSshd(), startSshd()]);
  dir = mkdtempSync(join(os.tmpdir(), "svc-hosts-cli-"));
  env = {
    DATABASE_URL: tdb.url,
    USER: "tester",
    SVC_SSH_HOST: one.host,
    SVC_SSH_PORT: String(one.port),
    SVC_SSH_USER: one.user,
    SVC_SSH_KEY_PATH: one.keyPath,
    SVC_SSH_KNOWN_HOSTS: one.knownHostsPath,
    SVC_LIBVIRT_URI: "qemu:///system",
    SVC_VM_IMAGES_DIR: join(dir, "images"),
    SVC_VM_DISKS_DIR: join(dir, "vms"),
  };
});

afterAll(async () => {
  await Promise.all([one?.stop(), two?.stop()]);
  await tdb?.drop();
  rmSync(dir, { recursive: true, force: true });
});

const addSecond = (...extra: string[]) => cli("add", "second", "--ssh", `${two.user}@${two.host}:${two.port}`, "--key", two.keyPath, "--libvirt-uri", "test:///default", ...extra);

describe("svc-hosts", () => {
  it("makes 'local' from the settings, with the host key its known_hosts pins, and probes it", async () => {
    const r = await cli("list", "-o", "json");
    expect(r).toMatchObject({ code: 0, err: "" });
    const [local] = r.json();
    expect(local).toMatchObject({
      name: "local",
      state: "active",
      up: true,
      address: one.host,
      port: one.port,
      ssh_user: one.user,
      key_path: one.keyPath,
      host_key: one.hostPublicKey,
    });
    expect(local).toMatchObject({ libvirt_uri: "qemu:///system", disks_dir: join(dir, "vms"), created_by: "cli:tester" });
    expect(local.last_probe.memory_total_mb).toBeGreaterThan(0);
    // Idempotent: a second run keeps the one row.
    expect((await cli("list", "--cached", "-o", "json")).json().map((h: { name: string }) => h.name)).toEqual(["local"]);
  });

  it("add pins the key the host presents, probes it and records its labels", async () => {
    const r = await addSecond("--label", "zone=a", "--label", "tier=lab", "-o", "json");
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ name: "second", up: true, host_key: two.hostPublicKey, labels: { zone: "a", tier: "lab" }, state: "active" });
    const info = (await cli("info", "second", "-o", "json")).json();
    // The test driver's fake hypervisor: 16 CPUs, one running domain that svc did not make.
    expect(info.last_probe).toMatchObject({ vcpus_total: 16, vm_count: 0, vms: [{ name: "test", svc: false, running: true }] });
    const table = await cli("list");
    expect(table.out).toMatch(/^second\s+active\s+up\s+root@127\.0\.0\.1:\d+\s+0\s+.*zone=a/m);
    expect((await addSecond()).code).toBe(4);
  });

  it("add refuses a host it cannot reach and records nothing; --no-probe records it without a key", async () => {
    const port = await freePort();
    const r = await cli("add", "gone", "--ssh", `root@127.0.0.1:${port}`, "--key", two.keyPath);
    expect(r.code).toBe(5);
    expect(r.err).toMatch(/host 'gone' .* cannot be reached, nothing recorded/);
    expect((await cli("info", "gone", "--cached")).code).toBe(3);
    const n = await cli("add", "gone", "--ssh", `root@127.0.0.1:${port}`, "--key", two.keyPath, "--no-probe", "-o", "json");
    expect(n.code).toBe(0);
    expect(n.json()).toMatchObject({ name: "gone", host_key: null, up: null });
    // It cannot be probed, so whether it holds VMs is unknown: removed only with --force.
    const rm = await cli("remove", "gone");
    expect(rm).toMatchObject({ code: 4, err: expect.stringMatching(/cannot be probed .*--force/) });
    expect((await cli("remove", "gone", "--force")).code).toBe(0);
  });

  it("refuses bad input with exit 2 and says what is wrong", async () => {
    expect(await cli("add", "Bad_Name", "--ssh", "root@h", "--key", "/k")).toMatchObject({ code: 2, err: expect.stringMatching(/name: a host name/) });
    expect(await cli("add", "x", "--ssh", "nohost", "--key", "/k")).toMatchObject({ code: 2, err: expect.stringMatching(/USER@ADDR/) });
    expect(await cli("add", "x", "--ssh", "root@h", "--key", "/k", "--label", "novalue")).toMatchObject({ code: 2, err: expect.stringMatching(/k=v/) });
    expect(await cli("add", "local", "--ssh", "root@h", "--key", "/k")).toMatchObject({ code: 2, err: expect.stringMatching(/made from the settings/) });
    expect(await cli("drain")).toMatchObject({ code: 2, err: expect.stringMatching(/needs one host NAME/) });
    expect(await cli("list", "--bogus")).toMatchObject({ code: 2 });
    expect(await cli("list", "-o", "yaml")).toMatchObject({ code: 2 });
    expect(await cli("frobnicate")).toMatchObject({ code: 2 });
    expect((await cli("drain", "nope")).code).toBe(3);
  });

  it("has --help on every verb", async () => {
    for (const verb of ["list", "info", "add", "drain", "activate", "undrain", "pin", "remove", "place"]) {
      const r = await cli(verb, "--help");
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/^Usage: svc-hosts /);
    }
    expect((await cli("--help")).out).toMatch(/Commands:/);
  });

  it("drain keeps placement off the host; activate takes it back", async () => {
    expect((await cli("drain", "second")).out).toMatch(/host 'second' is draining/);
    const p = await cli("place", "--memory", "1", "--cpus", "1", "--disk", "0", "--host", "second", "-o", "json");
    expect(p.code).toBe(1);
    expect(p.json().verdicts.find((v: { host: string }) => v.host === "second")).toMatchObject({ fits: false, reasons: expect.arrayContaining(["draining"]) });
    expect((await cli("undrain", "second")).out).toMatch(/host 'second' is active/);
    // The fake hypervisor has 6 MiB free and its domain holds 8 GiB: no VM fits, and the plan says so with the numbers.
    const q = await cli("place", "--memory", "64", "--cpus", "1", "--disk", "0", "--host", "second");
    expect(q.code).toBe(1);
    expect(q.out).toMatch(/^no host fits \(spread\)\n/);
    expect(q.out).toMatch(/^ {2}second: memory: 64 MiB asked, -\d+ MiB free after a 512 MiB reserve \(memory -\d+ MiB, disk \d+ GB, vcpus \d+ free\)$/m);
  });

  it("pin replaces the pinned key: the one given, or the one presented", async () => {
    const other = (await cli("info", "local", "--cached", "-o", "json")).json().host_key as string;
    expect((await cli("pin", "second", "--host-key", other, "-o", "json")).json().host_key).toBe(other);
    // The host now presents a key that is not the pinned one: it is down, whatever else is right.
    const info = (await cli("info", "second", "-o", "json")).json();
    expect(info).toMatchObject({ up: false, probe_error: expect.stringMatching(/host key/i) });
    expect((await cli("pin", "second", "-o", "json")).json().host_key).toBe(two.hostPublicKey);
    expect((await cli("info", "second", "-o", "json")).json().up).toBe(true);
  });

  it("remove refuses 'local', removes a host without svc VMs, and audits every change", async () => {
    expect(await cli("remove", "local")).toMatchObject({ code: 4, err: expect.stringMatching(/cannot be removed/) });
    expect(await cli("remove", "second")).toMatchObject({ code: 0, out: "host 'second' removed\n" });
    expect((await cli("info", "second")).code).toBe(3);
    const audit = await tdb.db.selectFrom("audit_event").select(["action", "target", "actor"]).where("target", "=", "host:second").orderBy("id").execute();
    expect(audit.map((a) => a.action)).toEqual(["host.add", "host.drain", "host.activate", "host.pin", "host.pin", "host.remove"]);
    expect(new Set(audit.map((a) => a.actor))).toEqual(new Set(["cli:tester"]));
  });

  it("remove refuses a host that holds a VM svc made, naming it", async () => {
    const vm = `svc-hosts-cli-${process.pid}`;
    const undefine = defineSvcDomain("qemu:///system", vm, dir);
    try {
      expect((await cli("add", "third", "--ssh", `${two.user}@${two.host}:${two.port}`, "--key", two.keyPath)).code).toBe(0);
      const r = await cli("remove", "third");
      expect(r.code).toBe(4);
      expect(r.err).toMatch(new RegExp(`host 'third' holds \\d+ VM\\(s\\) svc made \\(.*${vm}.*\\): delete them first`));
      expect((await cli("info", "third", "--cached")).code).toBe(0);
    } finally {
      undefine();
    }
  });
});
