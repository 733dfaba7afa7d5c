import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import { waitFor } from "@svc/testing";
import { createHostRouting } from "../src/routing/create-host-routing";
import { type HostRouting } from "../src/routing/types";
import { recordingLogger, twoHosts, URI, type TwoHosts } from "./routing-fixture";

jest.setTimeout(120_000);

// The routing's monitor with its production period (10 s) against two real hosts (this machine's
// libvirt through two private sshds): b's sshd is killed, then started again on the same port with
// the same host key.
let h: TwoHosts;
let routing: HostRouting;
let restarted: ChildProcess | undefined;
const logger = recordingLogger();
let changes = 0;

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, "127.0.0.1");
    s.once("connect", () => (s.destroy(), resolve(true)));
    s.once("error", () => resolve(false));
  });

beforeAll(async () => {
  h = await twoHosts("hostmon");
  await h.addHosts();
  routing = createHostRouting({ db: h.tdb.db, logger, hosts: "all" });
  routing.onChange(() => changes++);
  await routing.ready();
}, 60_000);
afterAll(async () => {
  await routing?.close();
  if (restarted && restarted.exitCode === null) {
    const gone = new Promise((r) => restarted!.once("exit", r));
    restarted.kill("SIGTERM");
    await gone;
  }
  await h?.close();
});

test("serves every host of the inventory after the first round, and a served host only while its probe finds it up", () => {
  expect(routing.served()).toEqual(["a", "b", "local"]);
  expect(routing.status()).toMatchObject({ a: { up: true }, b: { up: true }, local: { up: false, reason: "host 'local' has no pinned host key: svc-hosts pin local" } });
  expect([routing.serves("a"), routing.serves("b"), routing.serves("local"), routing.serves("elsewhere")]).toEqual([true, true, false, false]);
  expect(changes).toBe(1);
});

test("operatorHost gives the host's pinned executor (cached), its libvirt and directories, and a jump whose known_hosts holds only its pinned key", async () => {
  const a = routing.operatorHost("a")!;
  expect(a).toMatchObject({ name: "a", libvirtUri: URI, imagesDir: join(h.dir, "images"), disksDir: join(h.dir, "vms") });
  expect(a.jump).toEqual({ user: "root", address: "127.0.0.1", port: h.sshd.a.port, keyPath: h.sshd.a.keyPath, knownHostsPath: expect.any(String) });
  expect(readFileSync(a.jump!.knownHostsPath, "utf8")).toBe(`[127.0.0.1]:${h.sshd.a.port} ${h.sshd.a.hostPublicKey}\n`);
  const r = await a.executor!.run(["virsh", "--connect", URI, "uri"]);
  expect([r.code, r.stdout.trim()]).toEqual([0, URI]);
  expect(routing.operatorHost("a")!.executor).toBe(a.executor);
  expect(routing.operatorHost("local")).toBeUndefined();
  expect(() => routing.operatorHost("elsewhere")).toThrow("host 'elsewhere' is not served by this worker (or not in the inventory)");
});

test("a host whose sshd is stopped is down within 30 s (onChange fires, the probe error is recorded) and up again after sshd is restarted", async () => {
  const before = changes;
  const pid = Number(readFileSync(join(h.sshd.b.dir, "sshd.pid"), "utf8").trim());
  const killedAt = Date.now();
  process.kill(pid, "SIGTERM");
  await waitFor(() => !routing.serves("b"), { timeoutMs: 30_000, intervalMs: 200, what: "b seen down" });
  expect(Date.now() - killedAt).toBeLessThan(30_000);
  expect(changes).toBe(before + 1);
  expect(routing.status().b).toMatchObject({ up: false, reason: expect.stringMatching(/ECONNREFUSED|cannot reach/) });
  const row = await h.tdb.db.selectFrom("hypervisor_host").select(["probe_error"]).where("name", "=", "b").executeTakeFirstOrThrow();
  expect(row.probe_error).toMatch(/ECONNREFUSED|cannot reach/);
  expect(logger.lines).toContainEqual(expect.objectContaining({ level: "warn", msg: "host down", fields: expect.objectContaining({ host: "b" }) }));
  expect(routing.serves("a")).toBe(true);

  restarted = spawn("/usr/sbin/sshd", ["-D", "-e", "-f", join(h.sshd.b.dir, "sshd_config")], { stdio: "ignore" });
  await waitFor(() => accepts(h.sshd.b.port), { timeoutMs: 10_000, what: "sshd b restarted" });
  const startedAt = Date.now();
  await waitFor(() => routing.serves("b"), { timeoutMs: 30_000, intervalMs: 200, what: "b seen up" });
  expect(Date.now() - startedAt).toBeLessThan(30_000);
  expect(changes).toBe(before + 2);
  expect(logger.lines).toContainEqual(expect.objectContaining({ level: "info", msg: "host up", fields: { host: "b" } }));
});

test("with hosts 'all', a host added to the inventory later is served from the next round on", async () => {
  const before = changes;
  const b = await h.inv.get("b");
  const { ssh_user, port, key_path, libvirt_uri, images_dir, disks_dir, labels, reserve_memory_mb, reserve_disk_gb, reserve_vcpus, cpu_ratio } = b;
  const rest = { ssh_user, port, key_path, libvirt_uri, images_dir, disks_dir, labels, reserve_memory_mb, reserve_disk_gb, reserve_vcpus, cpu_ratio };
  await h.inv.insert({ ...rest, name: "c", address: "localhost", host_key: null }, "test");
  await waitFor(() => routing.served().includes("c"), { timeoutMs: 30_000, intervalMs: 200, what: "c served" });
  expect(changes).toBeGreaterThan(before);
  expect(routing.status().c).toMatchObject({ up: false, reason: "host 'c' has no pinned host key: svc-hosts pin c" });
});

test("close() stops the monitor and closes the hosts' executors (their private known_hosts is removed)", async () => {
  const kh = routing.operatorHost("a")!.jump!.knownHostsPath;
  await routing.close();
  expect(existsSync(kh)).toBe(false);
  const probedAt = (await h.inv.get("a")).probed_at;
  await new Promise((r) => setTimeout(r, 11_000));
  expect((await h.inv.get("a")).probed_at).toBe(probedAt);
});
