import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join, resolve } from "node:path";
import { createTestDb, ensureLibvirtd, startSecondHost, type SecondHost, type TestDb } from "@svc/testing";
import { runCli } from "../src/cli/run";
import { runVmHostsCli } from "../src/cli/vm-hosts";
import { svcDomainXml } from "./domain";

// svc-vm -C HOST / --all-hosts against a real Postgres inventory of three hosts: `local` (this
// machine's qemu:///system, run in this process) and b and c (each a private libvirtd reached over
// its own sshd, startSecondHost). Domains carry svc's metadata and are defined, never started.
const P = `vmh${process.pid}`;
const URI = "qemu:///system";
const BIN = resolve(__dirname, "../../vm/bin/svc-vm");
let tdb: TestDb;
let b: SecondHost;
let c: SecondHost;
let dir: string;
let env: Record<string, string>;

type Out = { code: number; out: string; err: string; json: () => any };

async function vm(...argv: string[]): Promise<Out> {
  let out = "";
  let err = "";
  const io = { out: (t: string) => void (out += `${t}\n`), err: (t: string) => void (err += `${t}\n`), env, isTTY: false, ask: async () => "" };
  const code = await runVmHostsCli(argv, io);
  return { code, out, err, json: () => JSON.parse(out) };
}

/** The real bin, as a user runs it. */
function bin(...argv: string[]): Promise<Out> {
  return new Promise((done) => {
    const p = spawn(process.execPath, [BIN, ...argv], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    p.stdout.on("data", (d: Buffer) => (out += d.toString()));
    p.stderr.on("data", (d: Buffer) => (err += d.toString()));
    p.on("close", (code) => done({ code: code ?? 1, out, err, json: () => JSON.parse(out) }));
  });
}

/** Define (never start) a domain with svc-vm's metadata on a test host, or on this machine's libvirt. */
function define(h: SecondHost | null, name: string): void {
  const disks = h ? h.disksDir : join(dir, "vms");
  const vmDir = join(disks, name);
  mkdirSync(vmDir, { recursive: true });
  const xml = svcDomainXml(name, vmDir, join(vmDir, "console.log"));
  const file = join(h ? h.dir : dir, `${name}.xml`);
  writeFileSync(file, xml);
  if (h) h.virsh("define", file);
  else expect(spawnSync("virsh", ["--connect", URI, "define", file], { encoding: "utf8" }).status).toBe(0);
}

const mine = (rows: { host: string; name: string }[]) =>
  rows
    .filter((r) => r.name.startsWith(P))
    .map((r) => `${r.host}/${r.name}`)
    .sort();

beforeAll(async () => {
  await ensureLibvirtd(URI);
  tdb = await createTestDb("vmhosts");
  [b, c] = await Promise.all([startSecondHost({ name: "b" }), startSecondHost({ name: "c" })]);
  dir = mkdtempSync(join(os.tmpdir(), "svc-vm-hosts-"));
  env = {
    DATABASE_URL: tdb.url,
    USER: "tester",
    // `local` runs in this process: its SSH settings only have to be well-formed.
    SVC_SSH_HOST: "127.0.0.1",
    SVC_SSH_USER: "root",
    SVC_SSH_KEY_PATH: join(dir, "id_ed25519"),
    SVC_SSH_KNOWN_HOSTS: join(dir, "known_hosts"),
    SVC_LIBVIRT_URI: URI,
    SVC_VM_IMAGES_DIR: join(dir, "images"),
    SVC_VM_DISKS_DIR: join(dir, "vms"),
    SVC_VM_DRIVER: "libvirt",
    SVC_VM_CLI: JSON.stringify(b.vmCli),
  };
  const quiet = { out: () => undefined, err: (t: string) => void process.stderr.write(`${t}\n`), env };
  for (const h of [b, c]) expect(await runCli(h.addArgs(), quiet)).toBe(0);
  define(null, `${P}-loc`);
  define(b, `${P}-b1`);
  define(b, `${P}-b2`);
  define(c, `${P}-c1`);
  define(b, `${P}-dup`);
  define(c, `${P}-dup`);
}, 120_000);

afterAll(async () => {
  spawnSync("virsh", ["--connect", URI, "undefine", `${P}-loc`]);
  await Promise.all([b?.stop(), c?.stop()]);
  await tdb?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("svc-vm across the hosts of the inventory", () => {
  it("list vm --all-hosts shows every host's VMs, each with its host", async () => {
    const r = await vm("list", "vm", "--all-hosts", "-o", "json");
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.json().unavailable).toEqual([]);
    expect(mine(r.json().vms)).toEqual([`b/${P}-b1`, `b/${P}-b2`, `b/${P}-dup`, `c/${P}-c1`, `c/${P}-dup`, `local/${P}-loc`]);
    const table = await vm("list", "vm", "--all-hosts");
    expect(table.out).toMatch(/^HOST\s+NAME\s+STATE/);
    expect(table.out).toMatch(new RegExp(`^c\\s+${P}-c1\\s+shut off`, "m"));
  });

  it("-C b lists only b's VMs; an unknown host is refused with the hosts there are", async () => {
    const r = await vm("-C", "b", "list", "vm", "-o", "json");
    expect(r.code).toBe(0);
    expect(mine(r.json())).toEqual([`b/${P}-b1`, `b/${P}-b2`, `b/${P}-dup`]);
    expect((r.json() as { host: string }[]).every((v) => v.host === "b")).toBe(true);
    const images = await vm("--host=b", "list", "image", "-o", "json");
    expect(images.json()).toEqual([expect.objectContaining({ host: "b", name: "debian-test", path: expect.stringContaining(b.imagesDir) })]);
    const unknown = await vm("-C", "nope", "list", "vm");
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/unknown host 'nope'; the inventory has: b, c, local/);
    const perHost = await vm("-C", "b", "list", "vm", "--uri", URI);
    expect(perHost.code).toBe(2);
    expect(perHost.err).toMatch(/--uri cannot be combined/);
  });

  it("info vm finds the VM on the host that has it, and names the hosts when several or none have it", async () => {
    const r = await vm("info", "vm", `${P}-c1`, "--all-hosts", "-o", "json");
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ host: "c", name: `${P}-c1`, state: "shut off" });
    expect((await vm("info", "vm", `${P}-c1`, "--all-hosts")).out).toMatch(/^host:\s+c$/m);
    const dup = await vm("info", "vm", `${P}-dup`, "--all-hosts");
    expect(dup.code).toBe(4);
    expect(dup.err).toMatch(/is on several hosts: b, c; name one with -C HOST/);
    expect((await vm("-C", "c", "info", "vm", `${P}-dup`, "-o", "json")).json()).toMatchObject({ host: "c" });
    const none = await vm("info", "vm", `${P}-none`, "--all-hosts");
    expect(none.code).toBe(3);
    expect(none.err).toMatch(/is not on any host of the inventory \(b, c, local\)/);
  });

  it("delete vm --all-hosts deletes the VM on the host that has it, and only there", async () => {
    const refused = await vm("delete", "vm", `${P}-b2`, "--all-hosts");
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/on host 'b' without -y/);
    const r = await vm("delete", "vm", `${P}-b2`, "--all-hosts", "-y", "-o", "json");
    expect(r.code).toBe(0);
    expect(r.json()).toEqual({ host: "b", name: `${P}-b2`, deleted: true });
    expect(b.domains()).not.toContain(`${P}-b2`);
    expect(b.domains()).toContain(`${P}-b1`);
    expect(c.domains()).toContain(`${P}-c1`);
  });

  it("a host that does not answer is listed as unavailable with why, and the others are still listed (exit 0)", async () => {
    await b.stopSshd();
    try {
      const r = await vm("list", "vm", "--all-hosts", "-o", "json");
      expect(r.code).toBe(0);
      expect(r.err).toMatch(/^svc-vm: host 'b' \(libvirt\): not listed: did not answer: /m);
      expect(r.json().unavailable).toEqual([{ host: "b", provider: "libvirt", region: null, error: expect.stringMatching(/^did not answer: /) }]);
      expect(mine(r.json().vms)).toEqual([`c/${P}-c1`, `c/${P}-dup`, `local/${P}-loc`]);
      const only = await vm("list", "vm", "-C", "b", "-o", "json");
      expect(only.code).toBe(5);
      expect(only.json().error).toEqual({ code: "host_unavailable", message: expect.stringMatching(/^host 'b': did not answer: /) });
      const info = await vm("info", "vm", `${P}-b1`, "--all-hosts");
      expect(info.code).toBe(5);
      expect(info.err).toMatch(/is not on c, local; b did not answer/);
    } finally {
      await b.startSshd();
    }
  });

  it("the svc-vm bin hands over only with -C or --all-hosts", async () => {
    const all = await bin("list", "vm", "--all-hosts", "-o", "json");
    expect(all.code).toBe(0);
    expect(mine(all.json().vms)).toEqual([`b/${P}-b1`, `b/${P}-dup`, `c/${P}-c1`, `c/${P}-dup`, `local/${P}-loc`]);
    // Without them: this host's libvirt only, no host field, as before.
    const plain = await bin("list", "vm", "-o", "json");
    expect(plain.code).toBe(0);
    const names = (plain.json() as { name: string; host?: string }[]).filter((v) => v.name.startsWith(P));
    expect(names).toEqual([expect.objectContaining({ name: `${P}-loc` })]);
    expect(names[0]!.host).toBeUndefined();
    expect((await bin("--help")).out).toMatch(/--all-hosts/);
  }, 120_000);
});
