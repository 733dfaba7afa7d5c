import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HOSTILE_STRINGS, NUL_STRINGS, waitFor } from "@svc/testing";
import { CommandTimeoutError } from "./errors";
import { LocalExecutor } from "./local-executor";

const ex = new LocalExecutor({ env: process.env });
let dir: string;
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), "svc-local-"))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("LocalExecutor", () => {
  it("passes hostile argv to the program unchanged, with no shell in between", async () => {
    const r = await ex.run(["printf", "%s\\0", ...HOSTILE_STRINGS]);
    expect(r.code).toBe(0);
    expect(r.stdout.split("\0").slice(0, -1)).toEqual([...HOSTILE_STRINGS]);
    expect(existsSync("/tmp/svc-pwned")).toBe(false);
  });

  it("rejects NUL in any word with a clear message", async () => {
    for (const s of NUL_STRINGS) await expect(ex.run(["echo", s])).rejects.toThrow(/NUL byte/);
  });

  it("returns the exit code and both streams, line by line as they come", async () => {
    const flag = join(dir, "go");
    const lines: string[] = [];
    const errs: string[] = [];
    // The command waits for a file the test creates only after seeing its first line: proves streaming.
    const r = await ex.run(["sh", "-c", `echo ready; while [ ! -e "$1" ]; do sleep 0.05; done; echo done; echo oops >&2; exit 7`, "sh", flag], {
      onStdout: (l) => (lines.push(l), l === "ready" && writeFileSync(flag, "")),
      onStderr: (l) => errs.push(l),
    });
    expect(r).toMatchObject({ code: 7, stdout: "ready\ndone\n", stderr: "oops\n" });
    expect(lines).toEqual(["ready", "done"]);
    expect(errs).toEqual(["oops"]);
  });

  it("writes stdin and passes env and cwd", async () => {
    const r = await ex.run(["sh", "-c", 'cat; echo "$FOO"; pwd'], { stdin: "in\n", env: { FOO: "$(bar)" }, cwd: dir });
    expect(r.stdout).toBe(`in\n$(bar)\n${dir}\n`);
  });

  it("kills the command and its children on timeout", async () => {
    const pidFile = join(dir, "t.pid");
    await expect(ex.run(["sh", "-c", `sleep 300 & echo $! > "$1"; wait`, "sh", pidFile], { timeoutMs: 300 })).rejects.toBeInstanceOf(CommandTimeoutError);
    const { readFileSync } = await import("node:fs");
    const pid = Number(readFileSync(pidFile, "utf8"));
    await waitFor(() => !alive(pid), { timeoutMs: 5000, what: "child killed" });
  });

  it("stops on cancel and rejects with the abort reason", async () => {
    const ac = new AbortController();
    const p = ex.run(["sleep", "300"], { signal: ac.signal, onStdout: () => undefined });
    setTimeout(() => ac.abort(new Error("cancelled by test")), 100);
    await expect(p).rejects.toThrow("cancelled by test");
  });

  it("gives a command only the allow-listed variables of the environment it was made with, never the service's secrets", async () => {
    const secrets = { DATABASE_URL: "postgres://svc:db-secret@127.0.0.1/svc", REDIS_URL: "redis://:redis-secret@127.0.0.1:6379", SVC_API_TOKEN: "token-secret" };
    const saved = Object.fromEntries(Object.keys(secrets).map((k) => [k, process.env[k]]));
    Object.assign(process.env, secrets);
    try {
      const r = await new LocalExecutor({ env: process.env }).run(["env"], { env: { FROM_TASK: "$(id)" } });
      const seen = new Map(
        r.stdout
          .split("\n")
          .filter(Boolean)
          .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
      );
      for (const k of Object.keys(secrets)) expect(seen.has(k)).toBe(false);
      expect([...seen.keys()].filter((k) => /^(SVC_|PG|REDIS|DATABASE|MODEL_)/.test(k))).toEqual([]);
      expect(seen.get("PATH")).toBe(process.env.PATH);
      expect(seen.get("FROM_TASK")).toBe("$(id)");
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it("passes the whole given environment only when told to (a CLI a person runs: svc-vm, svc-plugins)", async () => {
    const env = { PATH: process.env.PATH, SSH_AUTH_SOCK: "/tmp/agent.sock", UNSET: undefined };
    const all = await new LocalExecutor({ env, inheritAll: true }).run(["sh", "-c", 'echo "${SSH_AUTH_SOCK-none} ${UNSET-none}"']);
    expect(all.stdout).toBe("/tmp/agent.sock none\n");
    const listed = await new LocalExecutor({ env }).run(["sh", "-c", 'echo "${SSH_AUTH_SOCK-none}"']);
    expect(listed.stdout).toBe("none\n");
  });

  it("says clearly when the program does not exist", async () => {
    await expect(ex.run(["svc-no-such-program"])).rejects.toThrow("command not found: svc-no-such-program");
  });
});
