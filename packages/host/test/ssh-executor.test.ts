import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HostUnreachableError } from "@svc/errors";
import { freePort, startSshd, waitFor, type TestSshd } from "@svc/testing";
import { AuthFailedError, HostKeyUnknownError, SshExecutor, SshPool } from "../src";
import { CommandTimeoutError, HostKeyChangedError } from "../src/errors";
import { type SshOptions } from "../src/ssh-options";

let sshd: TestSshd;
const pools: SshPool[] = [];
function executor(over: Partial<SshOptions> = {}, poolOpts = {}): { ex: SshExecutor; pool: SshPool } {
  const pool = new SshPool(poolOpts);
  pools.push(pool);
  const opts: SshOptions = { host: sshd.host, port: sshd.port, user: sshd.user, keyPath: sshd.keyPath, knownHostsPath: sshd.knownHostsPath, connectTimeoutMs: 5000, ...over };
  return { ex: new SshExecutor(opts, pool), pool };
}
const remoteAlive = async (ex: SshExecutor, pid: string) => (await ex.run(["kill", "-0", pid])).code === 0;

beforeAll(async () => {
  sshd = await startSshd();
});
afterAll(async () => {
  for (const p of pools) await p.closeAll();
  await sshd?.stop();
});

// A command over SSH has been seen to take several seconds to start on a loaded 2-core machine.
jest.setTimeout(180_000);

describe("SshExecutor against a real sshd", () => {
  it("runs a command and returns stdout, stderr and the exit code", async () => {
    const { ex } = executor();
    const r = await ex.run(["sh", "-c", "echo out; echo err >&2; exit 3"]);
    expect(r).toMatchObject({ code: 3, stdout: "out\n", stderr: "err\n" });
    expect((await ex.run(["true"])).code).toBe(0);
  });

  it("streams lines while the command is still running", async () => {
    const { ex } = executor();
    const flag = join(sshd.dir, "go-stream");
    const lines: string[] = [];
    // The remote command waits for a file the test creates only once it has seen the first line.
    const r = await ex.run(["sh", "-c", `echo ready; while [ ! -e "$1" ]; do sleep 0.05; done; echo done`, "sh", flag], {
      onStdout: (l) => (lines.push(l), l === "ready" && writeFileSync(flag, "")),
    });
    expect(r.code).toBe(0);
    expect(lines).toEqual(["ready", "done"]);
  });

  it("passes stdin, env and cwd without a shell seeing them", async () => {
    const { ex } = executor();
    const r = await ex.run(["sh", "-c", 'cat; printf "%s\\n" "$V"; pwd'], { stdin: "data\n", env: { V: "$(id) `id` ;x" }, cwd: sshd.dir });
    expect(r.stdout).toBe(`data\n$(id) \`id\` ;x\n${sshd.dir}\n`);
  });

  it("kills the remote command on timeout", async () => {
    const { ex } = executor();
    const pidFile = join(sshd.dir, "timeout.pid");
    // The deadline leaves the command time to start: on a loaded machine an exec over SSH has taken seconds.
    await expect(ex.run(["sh", "-c", `echo $$ > "$1"; exec sleep 300`, "sh", pidFile], { timeoutMs: 8000 })).rejects.toBeInstanceOf(CommandTimeoutError);
    const pid = readFileSync(pidFile, "utf8").trim();
    await waitFor(async () => !(await remoteAlive(ex, pid)), { timeoutMs: 30_000, what: "remote sleep killed" });
  });

  it("cancels through an AbortSignal: rejects with the reason and the remote process dies", async () => {
    const { ex } = executor();
    const pidFile = join(sshd.dir, "cancel.pid");
    const ac = new AbortController();
    const p = ex.run(["sh", "-c", `echo $$ > "$1"; echo started; exec sleep 300`, "sh", pidFile], {
      signal: ac.signal,
      onStdout: (l) => l === "started" && ac.abort(new Error("cancelled by test")),
    });
    await expect(p).rejects.toThrow("cancelled by test");
    const pid = readFileSync(pidFile, "utf8").trim();
    await waitFor(async () => !(await remoteAlive(ex, pid)), { timeoutMs: 30_000, what: "remote sleep killed" });
  });

  it("reuses one connection for consecutive and concurrent commands", async () => {
    const { ex, pool } = executor();
    await ex.run(["true"]);
    await ex.run(["true"]);
    expect(ex.lastRunReusedConnection).toBe(true);
    await Promise.all([1, 2, 3, 4].map(() => ex.run(["true"])));
    expect(pool.connectionsOpened).toBe(1);
  });

  it("closes idle connections and opens a new one when needed", async () => {
    const { ex, pool } = executor({}, { idleCloseMs: 50 });
    await ex.run(["true"]);
    await new Promise((r) => setTimeout(r, 200));
    await ex.run(["true"]);
    expect(pool.connectionsOpened).toBe(2);
    expect(ex.lastRunReusedConnection).toBe(false);
  });

  it("fails on an unknown host key, naming the fingerprint and the known_hosts file", async () => {
    const empty = join(sshd.dir, "empty_known_hosts");
    writeFileSync(empty, "");
    const { ex } = executor({ knownHostsPath: empty });
    const err = await ex.run(["true"]).catch((e) => e);
    expect(err).toBeInstanceOf(HostKeyUnknownError);
    expect(err.message).toContain(`[127.0.0.1]:${sshd.port}`);
    expect(err.message).toMatch(/SHA256:/);
    expect(readFileSync(empty, "utf8")).toBe("");
  });

  it("pins an unknown key only when trustOnFirstUse is requested, then trusts it", async () => {
    const file = join(sshd.dir, "tofu_known_hosts");
    const { ex } = executor({ knownHostsPath: file, trustOnFirstUse: true });
    expect((await ex.run(["true"])).code).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(`[127.0.0.1]:${sshd.port} ${sshd.hostPublicKey}\n`);
    const { ex: strict } = executor({ knownHostsPath: file });
    expect((await strict.run(["true"])).code).toBe(0);
  });

  it("fails loudly on a changed host key, even with trustOnFirstUse", async () => {
    const other = join(sshd.dir, "other_host_key");
    spawnSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", other]);
    const file = join(sshd.dir, "changed_known_hosts");
    const line = `[127.0.0.1]:${sshd.port} ${readFileSync(`${other}.pub`, "utf8").split(" ").slice(0, 2).join(" ")}\n`;
    writeFileSync(file, line);
    const { ex } = executor({ knownHostsPath: file, trustOnFirstUse: true });
    const err = await ex.run(["true"]).catch((e) => e);
    expect(err).toBeInstanceOf(HostKeyChangedError);
    expect(err.message).toMatch(/HOST KEY CHANGED/);
    expect(readFileSync(file, "utf8")).toBe(line);
  });

  it("fails with an authentication error for a key the server does not accept", async () => {
    const wrong = join(sshd.dir, "wrong_client_key");
    spawnSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", wrong]);
    const { ex } = executor({ keyPath: wrong });
    await expect(ex.run(["true"])).rejects.toBeInstanceOf(AuthFailedError);
  });

  it("fails clearly when the host is unreachable", async () => {
    const { ex } = executor({ port: await freePort() });
    const err = await ex.run(["true"]).catch((e) => e);
    expect(err).toBeInstanceOf(HostUnreachableError);
    expect(err.message).toMatch(/cannot reach .*ECONNREFUSED/);
  });

  it("fails clearly when the key file is missing", async () => {
    const { ex } = executor({ keyPath: join(sshd.dir, "no-such-key") });
    await expect(ex.run(["true"])).rejects.toThrow(/no SSH private key at \S*no-such-key for root@127.0.0.1:\d+: run scripts\/development\/prepare-host.sh/);
  });

  it("never lets a NUL byte reach the remote side", async () => {
    const { ex } = executor();
    await expect(ex.run(["echo", "a\0b"])).rejects.toThrow(/NUL byte/);
    expect(existsSync("/tmp/svc-pwned")).toBe(false);
  });
});
