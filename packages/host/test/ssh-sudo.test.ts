import { join } from "node:path";
import { readFileSync } from "node:fs";
import { startSshd, waitFor, type TestSshd } from "@svc/testing";
import { SshExecutor, SshPool } from "../src";
import { SudoRequiredError } from "../src/errors";

// Non-root mode: a dedicated user with passwordless sudo; commands that need root get `sudo -n`.
let withSudo: TestSshd;
let noSudo: TestSshd;
const pool = new SshPool();
const exFor = (s: TestSshd) => new SshExecutor({ host: s.host, port: s.port, user: s.user, keyPath: s.keyPath, knownHostsPath: s.knownHostsPath }, pool);

beforeAll(async () => {
  withSudo = await startSshd({ user: "svc-test-sudo", sudo: true });
  noSudo = await startSshd({ user: "svc-test-nosudo", sudo: false });
});
afterAll(async () => {
  await pool.closeAll();
  await withSudo?.stop();
  await noSudo?.stop();
});

describe("non-root mode over SSH", () => {
  it("runs plain commands as the SSH user and root commands through sudo -n", async () => {
    const ex = exFor(withSudo);
    expect((await ex.run(["id", "-un"])).stdout.trim()).toBe("svc-test-sudo");
    const r = await ex.run(["id", "-u"], { root: true });
    expect(r).toMatchObject({ code: 0, stdout: "0\n" });
  });

  it("keeps argv intact through sudo, env included", async () => {
    const ex = exFor(withSudo);
    const r = await ex.run(["printf", "%s\\0", "$(id)", "a b", "--help"], { root: true, env: { X: "y" } });
    expect(r.stdout.split("\0").slice(0, -1)).toEqual(["$(id)", "a b", "--help"]);
  });

  it("kills a root command on timeout through sudo", async () => {
    const ex = exFor(withSudo);
    const pidFile = join(withSudo.dir, "root-sleep.pid");
    await expect(ex.run(["sh", "-c", `echo $$ > "$1"; exec sleep 300`, "sh", pidFile], { root: true, timeoutMs: 500 })).rejects.toThrow(/timed out/);
    const pid = readFileSync(pidFile, "utf8").trim();
    await waitFor(async () => (await ex.run(["kill", "-0", pid], { root: true })).code !== 0, { timeoutMs: 8000, what: "root sleep killed" });
  });

  it("says the user needs passwordless sudo when sudo would ask for a password", async () => {
    const ex = exFor(noSudo);
    expect((await ex.run(["id", "-un"])).stdout.trim()).toBe("svc-test-nosudo");
    const err = await ex.run(["id", "-u"], { root: true }).catch((e) => e);
    expect(err).toBeInstanceOf(SudoRequiredError);
    expect(err.message).toMatch(/svc-test-nosudo.*passwordless sudo/);
  });
});
