import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NonRetryableError } from "@svc/errors";
import { waitFor } from "@svc/testing";
import { checkFenced, fenceArgv, fenceKey, FencedError, type FenceOptions } from "./fence";
import { LocalExecutor } from "./local-executor";

// The fence through LocalExecutor: the same sh text runs on the host over SSH (see
// packages/host/test/fence-ssh.test.ts). The commands wait for files the test creates, never for time.
const ex = new LocalExecutor({ env: process.env });
let dir: string;
let n = 0;
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), "svc-fence-"))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A fresh task: its own key, effect file and go flag. */
function task() {
  const id = ++n;
  const t = { effect: join(dir, `effect-${id}`), go: join(dir, `go-${id}`), key: fenceKey("dag", "run", `task-${id}`) };
  const fence = (tryNumber: number, over: Partial<FenceOptions> = {}): FenceOptions => ({ stateDir: join(dir, "state"), key: t.key, tryNumber, ...over });
  // Appends one line (the effect), says so, waits for the go flag, then exits with $3.
  const cmd = (code = 0) => ["sh", "-c", 'echo effect >> "$1"; echo started; while [ ! -e "$2" ]; do sleep 0.05; done; echo done; exit "$3"', "sh", t.effect, t.go, String(code)];
  const effects = () => (existsSync(t.effect) ? readFileSync(t.effect, "utf8").split("\n").filter(Boolean).length : 0);
  return { ...t, fence, cmd, effects, go: () => writeFileSync(t.go, "") };
}
const collect = () => {
  const lines: string[] = [];
  return { lines, on: (l: string) => void lines.push(l) };
};

describe("the at-most-once fence on the host (LocalExecutor)", () => {
  it("a newer try started while an older one runs waits for it and adopts its result: one effect, same stdout and exit code", async () => {
    const t = task();
    const out1 = collect();
    const p1 = ex.run(t.cmd(3), { fence: t.fence(1), onStdout: out1.on });
    await waitFor(() => out1.lines.includes("started"), { timeoutMs: 10_000, what: "try 1 started" });
    const err2 = collect();
    const out2 = collect();
    const p2 = ex.run(t.cmd(3), { fence: t.fence(2), onStderr: err2.on, onStdout: out2.on });
    await waitFor(() => err2.lines.some((l) => /try 1 of this task is still running on this host; waiting/.test(l)), { timeoutMs: 10_000, what: "try 2 waiting" });
    t.go();
    const [r1, r2] = await Promise.all([p1, p2]);
    expect(r1).toMatchObject({ code: 3, stdout: "started\ndone\n" });
    expect(r2).toMatchObject({ code: 3, stdout: "started\ndone\n" });
    expect(out2.lines).toEqual(["started", "done"]);
    expect(r2.stderr).toMatch(/svc-fence: adopted the result of try 1 of this task \(exit 3\)/);
    expect(t.effects()).toBe(1);
  });

  it("a stale older try arriving after a newer one started is refused and does not run its command", async () => {
    const t = task();
    t.go();
    expect((await ex.run(t.cmd(0), { fence: t.fence(2) })).code).toBe(0);
    const err = await ex.run(t.cmd(0), { fence: t.fence(1) }).catch((e) => e);
    expect(err).toBeInstanceOf(FencedError);
    expect(err.message).toMatch(/fenced: try 2 of this task already started; try 1 stops here \(on local\)/);
    expect(t.effects()).toBe(1);
  });

  it("a retry after a finished, failed try runs the command fresh and keeps only its own result files", async () => {
    const t = task();
    t.go();
    const count = ["sh", "-c", 'echo effect >> "$1"; wc -l < "$1"; exit 1', "sh", t.effect];
    expect(await ex.run(count, { fence: t.fence(1) })).toMatchObject({ code: 1, stdout: "1\n" });
    const r2 = await ex.run(count, { fence: t.fence(2) });
    expect(r2).toMatchObject({ code: 1, stdout: "2\n" });
    expect(r2.stderr).not.toMatch(/adopted/);
    expect(t.effects()).toBe(2);
    const files = readdirSync(join(dir, "state"))
      .filter((f) => f.startsWith(t.key))
      .map((f) => f.slice(t.key.length + 1))
      .sort();
    expect(files).toEqual(["2.out", "2.rc", "meta", "newest", "ran", "run"]);
  });

  it("cancelling the older try kills its command; the newer try that waited then runs the command fresh", async () => {
    const t = task();
    const ac = new AbortController();
    const out1 = collect();
    const p1 = ex.run(t.cmd(0), { fence: t.fence(1), signal: ac.signal, onStdout: out1.on });
    await waitFor(() => out1.lines.includes("started"), { timeoutMs: 10_000, what: "try 1 started" });
    const err2 = collect();
    const out2 = collect();
    const p2 = ex.run(t.cmd(0), { fence: t.fence(2), onStderr: err2.on, onStdout: out2.on });
    await waitFor(() => err2.lines.some((l) => /waiting for it to finish/.test(l)), { timeoutMs: 10_000, what: "try 2 waiting" });
    ac.abort(new Error("cancelled by test"));
    await expect(p1).rejects.toThrow("cancelled by test");
    await waitFor(() => out2.lines.includes("started"), { timeoutMs: 10_000, what: "try 2 running fresh" });
    t.go();
    const r2 = await p2;
    expect(r2).toMatchObject({ code: 0, stdout: "started\ndone\n" });
    expect(r2.stderr).not.toMatch(/adopted/);
    expect(t.effects()).toBe(2);
  });

  it("adopts a finished older try's result when told the previous try was lost (adoptFinished)", async () => {
    const t = task();
    t.go();
    expect(await ex.run(t.cmd(0), { fence: t.fence(1) })).toMatchObject({ code: 0, stdout: "started\ndone\n" });
    const r2 = await ex.run(t.cmd(0), { fence: t.fence(2, { adoptFinished: true }) });
    expect(r2).toMatchObject({ code: 0, stdout: "started\ndone\n" });
    expect(r2.stderr).toMatch(/adopted the result of try 1/);
    expect(t.effects()).toBe(1);
  });

  it("tries of other tasks and other steps do not wait for each other", async () => {
    const a = task();
    const out = collect();
    const p = ex.run(a.cmd(0), { fence: a.fence(1), onStdout: out.on });
    await waitFor(() => out.lines.includes("started"), { timeoutMs: 10_000, what: "task a started" });
    const other = { ...a.fence(1), key: fenceKey("dag", "run", "other") };
    const step = { ...a.fence(2), key: fenceKey("dag", "run", `task-${n}`, "second-step") };
    expect((await ex.run(["echo", "x"], { fence: other })).stdout).toBe("x\n");
    expect((await ex.run(["echo", "y"], { fence: step })).stdout).toBe("y\n");
    a.go();
    expect((await p).code).toBe(0);
  });

  it("does not hand the run lock to what the command leaves running, so the next try is not held up", async () => {
    const t = task();
    const pidFile = join(dir, "daemon.pid");
    const daemon = ["sh", "-c", 'sleep 60 >/dev/null 2>&1 & echo $! > "$1"', "sh", pidFile];
    expect((await ex.run(daemon, { fence: t.fence(1) })).code).toBe(0);
    try {
      const r2 = await ex.run(["echo", "next"], { fence: t.fence(2) });
      expect(r2).toMatchObject({ code: 0, stdout: "next\n" });
      expect(r2.stderr).not.toMatch(/waiting/);
    } finally {
      spawnSync("kill", [readFileSync(pidFile, "utf8").trim()]);
    }
  });

  it("runs the command with the caller's umask, not the fence's private one", async () => {
    const t = task();
    const plain = await ex.run(["sh", "-c", "umask"]);
    expect((await ex.run(["sh", "-c", "umask"], { fence: t.fence(1) })).stdout).toBe(plain.stdout);
  });

  it("passes stdin and the command's stderr through", async () => {
    const t = task();
    const r = await ex.run(["sh", "-c", "cat; echo warn >&2"], { fence: t.fence(1), stdin: "in\n" });
    expect(r).toMatchObject({ code: 0, stdout: "in\n", stderr: "warn\n" });
  });

  it("sweeps other keys' results after a day and their other files after 8 days, never the running key's", async () => {
    const state = join(dir, "sweep");
    const old = fenceKey("dag", "run", "old-task");
    const files = { [`${old}.3.out`]: "2 days ago", [`${old}.3.rc`]: "2 days ago", [`${old}.newest`]: "2 days ago", [`${old}.meta`]: "9 days ago" };
    const t = task();
    expect((await ex.run(["true"], { fence: { ...t.fence(1), stateDir: state } })).code).toBe(0);
    for (const [f, age] of Object.entries(files)) {
      writeFileSync(join(state, f), "3\n");
      spawnSync("touch", ["-d", age, join(state, f)]);
    }
    expect((await ex.run(["true"], { fence: { ...t.fence(2), stateDir: state } })).code).toBe(0);
    const left = readdirSync(state);
    expect(left.filter((f) => f.startsWith(old))).toEqual([`${old}.newest`]);
    expect(left.filter((f) => f.startsWith(t.key)).sort()).toEqual([`${t.key}.2.out`, `${t.key}.2.rc`, `${t.key}.meta`, `${t.key}.newest`, `${t.key}.ran`, `${t.key}.run`]);
  });

  it("fails without running the command when its state directory is unusable, naming it", async () => {
    const file = join(dir, "not-a-dir");
    writeFileSync(file, "");
    const t = task();
    const err = await ex.run(t.cmd(0), { fence: { ...t.fence(1), stateDir: join(file, "tries") } }).catch((e) => e);
    expect(err).toBeInstanceOf(NonRetryableError);
    expect(err.message).toMatch(/fence could not run on local: state directory .*not-a-dir\/tries is missing or not writable/);
    expect(t.effects()).toBe(0);
  });

  it("refuses a relative state directory, a bad key or try number before running anything", () => {
    expect(() => fenceArgv({ stateDir: "tries", key: fenceKey("a", "b", "c"), tryNumber: 1 }, ["true"])).toThrow(/absolute/);
    expect(() => fenceArgv({ stateDir: "/x", key: "../etc", tryNumber: 1 }, ["true"])).toThrow(/hex/);
    expect(() => fenceArgv({ stateDir: "/x", key: fenceKey("a", "b", "c"), tryNumber: 0 }, ["true"])).toThrow(/positive/);
  });

  it("is plain POSIX sh that shellcheck accepts", () => {
    const script = fenceArgv({ stateDir: "/x", key: fenceKey("a", "b", "c"), tryNumber: 1 }, ["true"])[2]!;
    const r = spawnSync("shellcheck", ["-s", "sh", "-"], { input: script, encoding: "utf8" });
    // Never a pass without the check: a host without shellcheck fails here, saying how to get it.
    if (r.error) throw new Error(`shellcheck could not run (${r.error.message}): install it (apt-get install shellcheck, or pnpm test:ci)`);
    expect(r.stdout).toBe("");
    expect(r.status).toBe(0);
  });

  /** The fence script run by /bin/sh with PATH holding only `dir`: a host with fewer tools. */
  const onHostWith = (tools: Record<string, string>) => {
    const bin = mkdtempSync(join(dir, "bin-"));
    for (const [name, target] of Object.entries(tools)) symlinkSync(target, join(bin, name));
    const t = task();
    t.go(); // the command, when it runs, runs straight through
    const argv = fenceArgv(t.fence(1), t.cmd(0));
    const r = spawnSync("/bin/sh", argv.slice(1), { encoding: "utf8", env: { PATH: bin } });
    return { r, t };
  };
  const TOOLS = ["flock", "mkfifo", "tee", "find", "mv", "rm", "touch", "cat", "id", "chmod", "mkdir", "sh", "sleep"];
  /** Where this machine has each tool (the test needs them all). */
  const realTools = () =>
    Object.fromEntries(
      TOOLS.map((c) => {
        const at = spawnSync("/bin/sh", ["-c", 'command -v "$1"', "sh", c], { encoding: "utf8" }).stdout.trim();
        if (!at.startsWith("/")) throw new Error(`${c} is not installed on this machine: the fence tests need it`);
        return [c, at];
      }),
    );

  it("checks every tool it uses before running anything: a host without mkfifo (or find) fails naming it", () => {
    const real = realTools();
    for (const missing of ["mkfifo", "find"]) {
      const { r, t } = onHostWith(Object.fromEntries(Object.entries(real).filter(([c]) => c !== missing)));
      expect(r.status).toBe(96);
      expect(r.stderr).toContain(`svc-fence: ${missing} is not installed on this host`);
      expect(t.effects()).toBe(0);
    }
    // The whole set is enough: the same command runs.
    const { r, t } = onHostWith(real);
    expect([r.status, r.stderr, t.effects()]).toEqual([0, "", 1]);
  });

  it("a tee without -p (busybox) fails with a clear error before running the command, and checkFenced makes it non-retryable", () => {
    const fake = join(dir, "tee-without-p");
    writeFileSync(fake, '#!/bin/sh\ncase "$1" in -p) echo "tee: unrecognized option: p" >&2; exit 1;; esac\nexec cat\n', { mode: 0o755 });
    const { r, t } = onHostWith({ ...realTools(), tee: fake });
    expect(r.status).toBe(96);
    expect(r.stderr).toContain("svc-fence: tee -p is not supported on this host: GNU coreutils 8.24 or later is not installed");
    expect(t.effects()).toBe(0);
    expect(() => checkFenced({ code: r.status!, stdout: r.stdout, stderr: r.stderr }, "host1")).toThrow(NonRetryableError);
  });
});
