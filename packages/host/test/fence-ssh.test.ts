import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, chmodSync, chownSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { startSshd, waitFor, type TestSshd } from "@svc/testing";
import { fenceKey, FencedError, SshExecutor, SshPool, type FenceOptions } from "../src";

// The at-most-once fence on a real sshd: the worker's path to the host. The sh text is the one
// LocalExecutor runs (src/fence.test.ts covers the protocol's cases in detail).
let root: TestSshd;
let user: TestSshd;
let dir: string;
const pools: SshPool[] = [];
let n = 0;

function executor(s: TestSshd): { ex: SshExecutor; pool: SshPool } {
  const pool = new SshPool();
  pools.push(pool);
  return { ex: new SshExecutor({ host: s.host, port: s.port, user: s.user, keyPath: s.keyPath, knownHostsPath: s.knownHostsPath, connectTimeoutMs: 5000 }, pool), pool };
}

function task(stateDir = join(dir, "state")) {
  const id = ++n;
  const effect = join(dir, `effect-${id}`);
  const go = join(dir, `go-${id}`);
  const key = fenceKey("ssh_dag", "run", `task-${id}`);
  // One effect line, then output until the go flag appears (every 0.1 s), then exit $3.
  const cmd = (code = 0) => [
    "sh",
    "-c",
    'echo effect >> "$1"; echo started; while [ ! -e "$2" ]; do echo tick; sleep 0.1; done; echo done; exit "$3"',
    "sh",
    effect,
    go,
    String(code),
  ];
  return {
    fence: (tryNumber: number): FenceOptions => ({ stateDir, key, tryNumber }),
    cmd,
    effects: () => (existsSync(effect) ? readFileSync(effect, "utf8").split("\n").filter(Boolean).length : 0),
    go: () => writeFileSync(go, ""),
  };
}
const collect = () => {
  const lines: string[] = [];
  return { lines, on: (l: string) => void lines.push(l) };
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "svc-fence-ssh-"));
  // The non-root SSH user writes effect files here and keeps its fence state below.
  chmodSync(dir, 0o777);
  root = await startSshd();
  user = await startSshd({ user: "svc-test-fence", sudo: true });
});
afterAll(async () => {
  for (const p of pools) await p.closeAll();
  await root?.stop();
  await user?.stop();
  rmSync(dir, { recursive: true, force: true });
});

// A command over SSH has been seen to take several seconds to start on a loaded 2-core machine.
jest.setTimeout(180_000);

describe("the at-most-once fence over SSH", () => {
  it("a newer try started while an older one runs on the host waits and adopts its result: one effect", async () => {
    const t = task();
    const out1 = collect();
    const p1 = executor(root).ex.run(t.cmd(4), { fence: t.fence(1), onStdout: out1.on });
    await waitFor(() => out1.lines.includes("started"), { timeoutMs: 60_000, what: "try 1 started" });
    const err2 = collect();
    const p2 = executor(root).ex.run(t.cmd(4), { fence: t.fence(2), onStderr: err2.on });
    await waitFor(() => err2.lines.some((l) => /waiting for it to finish/.test(l)), { timeoutMs: 60_000, what: "try 2 waiting" });
    t.go();
    const [r1, r2] = await Promise.all([p1, p2]);
    expect(r1.code).toBe(4);
    expect(r2.code).toBe(4);
    expect(r2.stdout).toBe(r1.stdout);
    expect(r2.stdout).toMatch(/^started\n(tick\n)*done\n$/);
    expect(r2.stderr).toMatch(/adopted the result of try 1 of this task \(exit 4\)/);
    expect(t.effects()).toBe(1);
  });

  it("a stale older try is refused; a retry after a failed try runs fresh", async () => {
    const t = task();
    t.go();
    const { ex } = executor(root);
    expect((await ex.run(t.cmd(1), { fence: t.fence(1) })).code).toBe(1);
    const r2 = await ex.run(t.cmd(0), { fence: t.fence(2) });
    expect(r2.code).toBe(0);
    expect(r2.stderr).not.toMatch(/adopted/);
    await expect(ex.run(t.cmd(0), { fence: t.fence(1) })).rejects.toBeInstanceOf(FencedError);
    expect(t.effects()).toBe(2);
  });

  it("cancelling the older try kills its remote command; the newer try then runs fresh", async () => {
    const t = task();
    const ac = new AbortController();
    const out1 = collect();
    const p1 = executor(root).ex.run(t.cmd(0), { fence: t.fence(1), signal: ac.signal, onStdout: out1.on });
    await waitFor(() => out1.lines.includes("started"), { timeoutMs: 60_000, what: "try 1 started" });
    const err2 = collect();
    const out2 = collect();
    const p2 = executor(root).ex.run(t.cmd(0), { fence: t.fence(2), onStderr: err2.on, onStdout: out2.on });
    await waitFor(() => err2.lines.some((l) => /waiting for it to finish/.test(l)), { timeoutMs: 60_000, what: "try 2 waiting" });
    ac.abort(new Error("cancelled by test"));
    await expect(p1).rejects.toThrow("cancelled by test");
    await waitFor(() => out2.lines.includes("started"), { timeoutMs: 60_000, what: "try 2 running fresh" });
    t.go();
    const r2 = await p2;
    expect(r2.code).toBe(0);
    expect(r2.stderr).not.toMatch(/adopted/);
    expect(t.effects()).toBe(2);
  });

  it("a lost connection does not kill the command: it finishes on the host and the next try adopts its whole result", async () => {
    const t = task();
    const first = executor(root);
    const out1 = collect();
    const p1 = first.ex.run(t.cmd(0), { fence: t.fence(1), onStdout: out1.on });
    await waitFor(() => out1.lines.includes("tick"), { timeoutMs: 60_000, what: "try 1 started" });
    await first.pool.closeAll(); // the worker is gone: sshd closes the session's pipes
    await p1.catch(() => undefined);
    const err2 = collect();
    const p2 = executor(root).ex.run(t.cmd(0), { fence: t.fence(2), onStderr: err2.on });
    await waitFor(() => err2.lines.some((l) => /waiting for it to finish/.test(l)), { timeoutMs: 60_000, what: "try 2 waiting" });
    t.go();
    const r2 = await p2;
    expect(r2.code).toBe(0);
    expect(r2.stdout).toMatch(/^started\n(tick\n)+done\n$/);
    expect(r2.stderr).toMatch(/adopted the result of try 1/);
    expect(t.effects()).toBe(1);
  });

  it("non-root mode: the fence runs as the SSH user around sudo; a root command's second try adopts the first's result", async () => {
    const stateDir = join(dir, "user-state");
    mkdirSync(stateDir, { mode: 0o700 });
    const uid = Number(spawnSync("id", ["-u", user.user], { encoding: "utf8" }).stdout);
    chownSync(stateDir, uid, uid);
    const t = task(stateDir);
    const out1 = collect();
    const p1 = executor(user).ex.run(t.cmd(0), { root: true, fence: t.fence(1), onStdout: out1.on });
    await waitFor(() => out1.lines.includes("started"), { timeoutMs: 60_000, what: "try 1 started" });
    const err2 = collect();
    const p2 = executor(user).ex.run(t.cmd(0), { root: true, fence: t.fence(2), onStderr: err2.on });
    await waitFor(() => err2.lines.some((l) => /waiting for it to finish/.test(l)), { timeoutMs: 60_000, what: "try 2 waiting" });
    t.go();
    const [r1, r2] = await Promise.all([p1, p2]);
    expect(r2).toMatchObject({ code: 0, stdout: r1.stdout });
    expect(r2.stderr).toMatch(/adopted the result of try 1/);
    expect(t.effects()).toBe(1);
    const files = readdirSync(stateDir);
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(statSync(join(stateDir, f)).uid).toBe(uid);
    const id = await executor(user).ex.run(["id", "-u"], { root: true, fence: { ...t.fence(3), key: fenceKey("ssh_dag", "run", "whoami") } });
    expect(id).toMatchObject({ code: 0, stdout: "0\n" });
  });
});
