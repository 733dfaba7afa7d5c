import { existsSync } from "node:fs";
import { HOSTILE_STRINGS, NUL_STRINGS, startSshd, type TestSshd } from "@svc/testing";
import { SshExecutor, SshPool } from "../src";

let sshd: TestSshd;
const pool = new SshPool();
let ex: SshExecutor;

beforeAll(async () => {
  sshd = await startSshd();
  ex = new SshExecutor({ host: sshd.host, port: sshd.port, user: sshd.user, keyPath: sshd.keyPath, knownHostsPath: sshd.knownHostsPath }, pool);
});
afterAll(async () => {
  await pool.closeAll();
  await sshd?.stop();
});

// About 150 commands over SSH one after another: on a loaded 2-core machine each has taken seconds.
jest.setTimeout(300_000);

describe("argv over a real sshd (the remote login shell parses the quoted command)", () => {
  it("delivers every hostile string byte-for-byte as one remote argument", async () => {
    for (const s of HOSTILE_STRINGS) {
      const r = await ex.run(["printf", "%s\\0", s]);
      expect(r.code).toBe(0);
      expect(r.stdout.split("\0").slice(0, -1)).toEqual([s]);
    }
    expect(existsSync("/tmp/svc-pwned")).toBe(false);
  });

  it("delivers the whole corpus in one command, in order", async () => {
    const r = await ex.run(["printf", "%s\\0", ...HOSTILE_STRINGS]);
    expect(r.stdout.split("\0").slice(0, -1)).toEqual([...HOSTILE_STRINGS]);
  });

  it("keeps hostile words hostile-free in env, cwd-less sudo-less runs too", async () => {
    for (const s of HOSTILE_STRINGS.slice(0, 60)) {
      const r = await ex.run(["sh", "-c", 'printf "%s" "$X"'], { env: { X: s } });
      expect(r.stdout).toBe(s);
    }
    expect(existsSync("/tmp/svc-pwned")).toBe(false);
  });

  it("rejects NUL before anything is sent", async () => {
    for (const s of NUL_STRINGS) await expect(ex.run(["printf", "%s", s])).rejects.toThrow(/NUL byte/);
  });
});
