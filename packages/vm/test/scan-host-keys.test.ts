import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { connect, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalExecutor, type HostExecutor } from "@svc/host";
import { freePort, startSshd, waitFor, type TestSshd } from "@svc/testing";
import { scanHostKeys, waitForHostKeys } from "../src/host-keys";

// scanHostKeys against real sshds on 127.0.0.1: one with an ed25519 key (a VM made from our images),
// one with only an RSA key (a server in FIPS mode), and a port nothing listens on.
let sshd: TestSshd;
let rsaOnly: ChildProcess;
let rsaPort: number;
let dir: string;
const argvs: string[][] = [];
const local = new LocalExecutor({ env: process.env });
const ex: HostExecutor = { target: local.target, run: (argv, o) => (argvs.push([...argv]), local.run(argv, o)), close: () => local.close() };

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect(port, "127.0.0.1", () => (s.destroy(), resolve(true)));
    s.on("error", () => resolve(false));
  });

beforeAll(async () => {
  sshd = await startSshd();
  dir = mkdtempSync(join(tmpdir(), "svc-scan-"));
  spawnSync("ssh-keygen", ["-q", "-t", "rsa", "-b", "2048", "-N", "", "-f", join(dir, "host_rsa")]);
  rsaPort = await freePort();
  rsaOnly = spawn(
    "/usr/sbin/sshd",
    ["-D", "-e", "-f", "/dev/null", "-o", `HostKey=${join(dir, "host_rsa")}`, "-o", "ListenAddress=127.0.0.1", "-p", String(rsaPort), "-o", `PidFile=${join(dir, "pid")}`],
    { stdio: "ignore" },
  );
  await waitFor(() => listening(rsaPort), { timeoutMs: 10_000, what: "the RSA-only sshd" });
}, 60_000);
afterAll(async () => {
  rsaOnly?.kill();
  await sshd?.stop();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => (argvs.length = 0));

test("a server with an ed25519 key is scanned once, for that key alone", async () => {
  const keys = await scanHostKeys(ex, "127.0.0.1", sshd.port, { timeoutS: 3 });
  expect(keys).toEqual([`[127.0.0.1]:${sshd.port} ${sshd.hostPublicKey}`]);
  expect(argvs).toEqual([["ssh-keyscan", "-T", "3", "-t", "ed25519", "-p", String(sshd.port), "--", "127.0.0.1"]]);
});

test("a server that answers without an ed25519 key is scanned again for every type, and its key is returned", async () => {
  const keys = await scanHostKeys(ex, "127.0.0.1", rsaPort, { timeoutS: 3 });
  const pub = readFileSync(join(dir, "host_rsa.pub"), "utf8").split(" ").slice(0, 2).join(" ");
  expect(keys).toEqual([`[127.0.0.1]:${rsaPort} ${pub}`]);
  expect(argvs.map((a) => a.includes("-t"))).toEqual([true, false]);
});

test("a port where nothing answers gives no keys after one scan", async () => {
  const port = await freePort();
  await expect(scanHostKeys(ex, "127.0.0.1", port, { timeoutS: 3 })).resolves.toEqual([]);
  expect(argvs.length).toBe(1);
});

describe("waitForHostKeys (a server that is still starting)", () => {
  /**
   * What a user-mode guest's forward does while the guest boots: accepts and says nothing. The
   * first `silent` connections are held open and silent; later ones are passed to the sshd.
   */
  async function startingServer(silent: number) {
    const port = await freePort();
    const held: Socket[] = [];
    const open = new Set<Socket>();
    let connections = 0;
    let heldOpenAtAnswer = -1;
    const server = createServer((c) => {
      if (++connections <= silent) {
        open.add(c);
        c.on("close", () => open.delete(c));
        return void held.push(c);
      }
      // How many silent connections the client still held open when one was first let through.
      if (heldOpenAtAnswer < 0) heldOpenAtAnswer = open.size;
      const up = connect(sshd.port, "127.0.0.1");
      c.pipe(up).pipe(c);
      const end = () => (c.destroy(), up.destroy());
      c.on("error", end).on("close", end);
      up.on("error", end).on("close", end);
    });
    await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
    const stop = () => (held.forEach((c) => c.destroy()), new Promise<void>((r) => server.close(() => r())));
    return { port, connections: () => connections, heldOpenAtAnswer: () => heldOpenAtAnswer, stop };
  }

  test("scans afresh, in one command, until a server that held its first connections silent answers", async () => {
    const s = await startingServer(3);
    try {
      const { keys, pin } = await waitForHostKeys(ex, "127.0.0.1", s.port, { forS: 60, pauseS: 0.2 });
      expect(keys).toEqual([`[127.0.0.1]:${s.port} ${sshd.hostPublicKey}`]);
      expect(pin).toBeNull();
      expect(argvs).toHaveLength(1);
      expect(s.connections()).toBe(4);
    } finally {
      await s.stop();
    }
  }, 120_000);

  test("given the VM's directory, pins the keys it found there in the same command; a VM without one is skipped", async () => {
    mkdirSync(join(dir, "vm-a"), { recursive: true });
    const got = await waitForHostKeys(ex, "127.0.0.1", sshd.port, { forS: 10, pin: { disksDir: dir, vm: "vm-a" } });
    const line = `[127.0.0.1]:${sshd.port} ${sshd.hostPublicKey}`;
    expect(got).toEqual({ keys: [line], pin: { status: "pinned", path: join(dir, "vm-a", "known_hosts") } });
    expect(readFileSync(join(dir, "vm-a", "known_hosts"), "utf8")).toBe(`${line}\n`);
    expect(argvs).toHaveLength(1);
    const gone = await waitForHostKeys(ex, "127.0.0.1", sshd.port, { forS: 10, pin: { disksDir: dir, vm: "vm-gone" } });
    expect(gone).toEqual({ keys: [line], pin: { status: "skipped", path: join(dir, "vm-gone", "known_hosts") } });
    expect(existsSync(join(dir, "vm-gone"))).toBe(false);
  }, 60_000);

  test("a patient scan waits beside the quick ones: a server that starts while it waits is found by the next quick scan", async () => {
    // The 8 quick scans and the patient one started after the 8th are held silent; the 10th connection,
    // a quick scan, is let through while the patient one still waits (before, the 8th scan was the
    // patient one and the scans took turns: nothing was open when a connection was let through).
    const s = await startingServer(9);
    try {
      const { keys } = await waitForHostKeys(ex, "127.0.0.1", s.port, { forS: 60, pauseS: 0.2 });
      expect(keys).toEqual([`[127.0.0.1]:${s.port} ${sshd.hostPublicKey}`]);
      expect(s.connections()).toBe(10);
      expect(s.heldOpenAtAnswer()).toBe(1);
      expect(argvs).toHaveLength(1);
    } finally {
      await s.stop();
    }
  }, 120_000);

  test("gives no keys when nothing answers within its time, in one command", async () => {
    const port = await freePort();
    await expect(waitForHostKeys(ex, "127.0.0.1", port, { forS: 2, pauseS: 0.2, pin: { disksDir: dir, vm: "vm-none" } })).resolves.toEqual({ keys: [], pin: null });
    expect(argvs).toHaveLength(1);
  }, 60_000);

  test("scans a server that answers without an ed25519 key again for every type", async () => {
    const pub = readFileSync(join(dir, "host_rsa.pub"), "utf8").split(" ").slice(0, 2).join(" ");
    await expect(waitForHostKeys(ex, "127.0.0.1", rsaPort, { forS: 10 })).resolves.toEqual({ keys: [`[127.0.0.1]:${rsaPort} ${pub}`], pin: null });
    expect(argvs.map((a) => a[0])).toEqual(["sh", "ssh-keyscan", "ssh-keyscan"]);
  }, 60_000);
});

test("waitForHostKeys fails clearly, not with an empty answer, when its command cannot run on the host", async () => {
  const broken: HostExecutor = { target: "root@lab2:22", run: async () => ({ code: 127, stdout: "", stderr: "sh: 1: ssh-keyscan: not found\n" }), close: async () => undefined };
  await expect(waitForHostKeys(broken, "127.0.0.1", 2222, { forS: 5 })).rejects.toThrow(
    "scanning 127.0.0.1:2222 from root@lab2:22 failed (exit 127): sh: 1: ssh-keyscan: not found",
  );
});
