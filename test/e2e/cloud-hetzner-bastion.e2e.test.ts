import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { loadConfig, type SvcConfig } from "@svc/config";
import { createHostService } from "@svc/hosts";
import { createTestDb, createTestRedis, startSshd, type TestDb, type TestSshd } from "@svc/testing";
import { parseConsoleHostKeys, type ConsoleHostKeys } from "@svc/vm";
import { HetznerDriver } from "../../packages/vm/src/hetzner/driver";
import { startFakeBastion, type FakeBastion } from "../../packages/vm/test/fake-bastion";
import { startHetznerFake, type HetznerFake } from "../../packages/vm/test/hetzner-fake";
import { engineTestEnv, startVmDeploymentEngine, vmDeploymentWork, type VmDeploymentEngine } from "./engine-env";

// vm_deployment's SSH wait on a Hetzner host through its bastion, VM-less: the fake's server is
// backed by a test sshd on 127.0.0.1 (the "machine"), the bastion a fake's SSH server on 127.0.0.1
// that forwards a connection to the server's public address there. So the bastion path and trust
// on first use run for real and nothing connects to the address the fake invented. configure is
// off (the machine is this one); cloud-hetzner.e2e.test.ts runs the whole path on a real VM.
// A second host, hz-con, pins host keys from the provider's console before the first contact: its
// driver gains a console (Hetzner has none; EC2's GetConsoleOutput is what this stands for) that
// prints cloud-init's blocks, read by the real parser. The console printing the sshd's own key:
// pinned before contact, SSH checked against it. Printing another key: the run is refused with a
// mismatch, nothing is pinned, the server removed.
jest.setTimeout(240_000);

let tdb: TestDb;
let redis: ReturnType<typeof createTestRedis>;
let work: string;
let config: SvcConfig;
let engine: VmDeploymentEngine | undefined;
let sshd: TestSshd;
let fake: HetznerFake;
let bastion: FakeBastion;
/** The key lines hz-con's console prints (cloud-init's KEYS block). */
let printed: string[] = [];
const consoleReads: string[] = [];

const consoleText = (keys: string[]) =>
  [
    "[   12.3] cloud-init[512]: Cloud-init v. 22.4.2 running 'modules:final'",
    "<14>Dec  2 06:00:01 ec2: -----BEGIN SSH HOST KEY KEYS-----",
    ...keys.map((k) => `<14>Dec  2 06:00:01 ec2: ${k} root@c`),
    "<14>Dec  2 06:00:01 ec2: -----END SSH HOST KEY KEYS-----",
  ].join("\n");

beforeAll(async () => {
  sshd = await startSshd();
  fake = await startHetznerFake("hc-bastion-token", { machines: { boot: () => Promise.resolve({ sshPort: sshd.port }), remove: () => Promise.resolve() } });
  bastion = await startFakeBastion(`${sshd.keyPath}.pub`, (address, port) => fake.sshPortOf(address, port));
  tdb = await createTestDb("hzbastion");
  redis = createTestRedis("hzbastion");
  let dagsDir: string;
  ({ work, dagsDir } = vmDeploymentWork("hzbastion"));
  config = {
    ...loadConfig({
      ...engineTestEnv(tdb, redis, dagsDir),
      SVC_SSH_HOST: "local",
      SVC_INVENTORY_DIR: path.join(work, "inventory"),
      SVC_VM_DEFAULT_IMAGE: "debian12",
      SVC_VM_DEFAULT_NETWORK: "user",
    }),
    reconcileIntervalMs: 2000,
  };
  const hosts = createHostService({ db: tdb.db });
  for (const name of ["hz-test", "hz-con"]) {
    await hosts.addCloud(
      {
        name,
        provider: "hetzner",
        settings: { location: "fsn1", endpoint: fake.endpoint, bastion: `root@127.0.0.1:${bastion.port}`, ssh_user: sshd.user },
        key_path: sshd.keyPath,
        bastion_key: bastion.hostKey,
      },
      { probe: false, actor: "test" },
    );
  }
  engine = await startVmDeploymentEngine(tdb.db, config, redis, dagsDir, async (r) => {
    const d = new HetznerDriver({ location: r.provider_settings.location!, endpoint: r.provider_settings.endpoint!, token: fake.token, sshUser: sshd.user, pollMs: 100 });
    if (r.name !== "hz-con") return d;
    const consoleHostKeys = async (name: string): Promise<ConsoleHostKeys> => {
      consoleReads.push(name);
      return { ...parseConsoleHostKeys(consoleText(printed)), source: `the test console of ${name}` };
    };
    return Object.assign(d, { consoleHostKeys });
  });
}, 120_000);

afterAll(async () => {
  await engine?.stop();
  await bastion?.stop();
  await fake?.stop();
  await sshd?.stop();
  await redis?.cleanup();
  await tdb?.drop();
  if (work) rmSync(work, { recursive: true, force: true });
}, 120_000);

const run = (runId: string, conf: Record<string, unknown>, host = "hz-test") => engine!.run(runId, { host, ...conf });
const ti = (runId: string, taskId: string) => engine!.ti(runId, taskId);
const logOf = (runId: string, taskId: string) => engine!.logOf(runId, taskId);

test("the SSH wait goes through the bastion to the server's address only, trusts the key on first use, says so and pins it; delete removes server and pin", async () => {
  expect(await run("jump", { vm_name: "j1", configure: false })).toBe("success");
  const sv = [...fake.servers.values()].find((s) => s.name === "j1")!;
  const ip = String(sv.public_net.ipv4.ip);
  const wait = await ti("jump", "wait_ssh");
  expect(wait.state).toBe("success");
  const hostKey = sshd.hostPublicKey.split(" ").slice(0, 2).join(" ");
  expect(wait.output).toMatchObject({ ssh_host: ip, ssh_port: 22, ssh_user: sshd.user, host_key_trust: "first-use", host_keys: [`${ip} ${hostKey}`] });
  expect(new Set(bastion.forwards)).toEqual(new Set([`${ip}:22`]));
  const log = (await logOf("jump", "wait_ssh")).join("\n");
  expect(log).toContain(`through the bastion root@127.0.0.1:${bastion.port}`);
  expect(log).toMatch(/Host keys trusted on first use \(hetzner prints none svc can read beforehand\), pinned in /);
  const pinned = path.join(work, "inventory", "cloud-known-hosts", "hz-test", "j1");
  expect(readFileSync(pinned, "utf8")).toBe(`${ip} ${hostKey}\n`);

  expect(await run("jump-del", { action: "delete", vm_name: "j1" })).toBe("success");
  expect(fake.servers.size).toBe(0);
  expect(existsSync(pinned)).toBe(false);
});

const pinnedPath = (vm: string) => path.join(work, "inventory", "cloud-known-hosts", "hz-con", vm);
const consoleKey = () => sshd.hostPublicKey.split(" ").slice(0, 2).join(" ");

test("the console printing the server's own key: it is pinned before the first contact, SSH is checked against it, the run says so", async () => {
  printed = [consoleKey()];
  expect(await run("match", { vm_name: "k1", configure: false }, "hz-con")).toBe("success");
  expect(consoleReads).toContain("k1");
  const ip = String([...fake.servers.values()].find((s) => s.name === "k1")!.public_net.ipv4.ip);
  expect((await ti("match", "wait_ssh")).output).toMatchObject({ ssh_host: ip, host_key_trust: "console", host_keys: [`${ip} ${consoleKey()}`] });
  const log = (await logOf("match", "wait_ssh")).join("\n");
  expect(log).toContain("host keys read from the test console of k1: ssh-ed25519; they are pinned before the first contact");
  expect(log).toMatch(/Host keys as the test console of k1 printed them, pinned in /);
  expect(log).not.toMatch(/trusted on first use/);
  expect(readFileSync(pinnedPath("k1"), "utf8")).toBe(`${ip} ${consoleKey()}\n`);
  expect(await run("match-del", { action: "delete", vm_name: "k1" }, "hz-con")).toBe("success");
  expect(existsSync(pinnedPath("k1"))).toBe(false);
});

test("the console printing another key: the SSH wait is refused as a host key mismatch, nothing is pinned, the server is removed", async () => {
  const other = path.join(work, "other_host_key");
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", other]);
  printed = [readFileSync(`${other}.pub`, "utf8").trim().split(" ").slice(0, 2).join(" ")];
  expect(await run("mismatch", { vm_name: "k2", configure: false }, "hz-con")).toBe("failed");
  expect((await ti("mismatch", "wait_ssh")).state).toBe("failed");
  const log = (await logOf("mismatch", "wait_ssh")).join("\n");
  expect(log).toMatch(/host key mismatch for VM 'k2' at \S+:22: ssh refused the key it offered \(.*\), but the test console of k2 printed SHA256:/);
  expect(existsSync(pinnedPath("k2"))).toBe(false);
  expect((await ti("mismatch", "cleanup_on_failure")).state).toBe("success");
  expect([...fake.servers.values()].filter((s) => s.name === "k2")).toEqual([]);
});
