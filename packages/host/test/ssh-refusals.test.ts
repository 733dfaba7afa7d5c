import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSshd, type TestSshd } from "@svc/testing";
import { SshExecutor, SshPool } from "../src";
import { type SshOptions } from "../src/ssh-options";

// A server that refuses a channel on a live connection (MaxSessions reached, or sessions it has
// not freed yet) must cost neither that command nor the others running on the connection.
let busy: TestSshd;
let narrow: TestSshd;
const pools: SshPool[] = [];
function executor(sshd: TestSshd): { ex: SshExecutor; pool: SshPool } {
  const pool = new SshPool();
  pools.push(pool);
  const opts: SshOptions = { host: sshd.host, port: sshd.port, user: sshd.user, keyPath: sshd.keyPath, knownHostsPath: sshd.knownHostsPath, connectTimeoutMs: 10_000 };
  return { ex: new SshExecutor(opts, pool), pool };
}

/** Run `argv` `total` times, `width` at a time; what did not exit 0, as text. */
async function hammer(ex: SshExecutor, argv: string[], total: number, width: number): Promise<string[]> {
  const bad: string[] = [];
  let started = 0;
  const lane = async () => {
    while (started < total) {
      started++;
      try {
        const r = await ex.run(argv);
        if (r.code !== 0) bad.push(`exit ${r.code}: ${JSON.stringify(r.stderr)}`);
      } catch (e) {
        bad.push(`threw: ${(e as Error).message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: width }, lane));
  return bad;
}

beforeAll(async () => {
  [busy, narrow] = await Promise.all([startSshd(), startSshd({ maxSessions: 2 })]);
});
afterAll(async () => {
  for (const p of pools) await p.closeAll();
  await Promise.all([busy?.stop(), narrow?.stop()]);
});

jest.setTimeout(300_000);

describe("SshExecutor when the server refuses channels", () => {
  it("400 commands that end at once, 20 at a time: every one exits 0, over a few connections", async () => {
    // Channels close and reopen faster than sshd frees their sessions, so it refuses some opens;
    // dropping the connection then ended the other commands on it without a status (255).
    const { ex, pool } = executor(busy);
    expect(await hammer(ex, ["true"], 400, 20)).toEqual([]);
    expect(pool.connectionsOpened).toBeLessThanOrEqual(8);
  });

  it("a server with MaxSessions 2: 8 commands at once all run, on connections of at most 2 channels", async () => {
    const { ex, pool } = executor(narrow);
    // Each command marks itself started and waits until all 8 have (30 s at most, then exit 9):
    // they all run at the same time, however slowly the machine starts them.
    const dir = mkdtempSync(join(tmpdir(), "svc-refusals-"));
    const barrier = ["sh", "-c", 'mktemp -p "$1" >/dev/null; n=0; while [ "$(ls "$1" | wc -l)" -lt 8 ]; do n=$((n + 1)); [ "$n" -lt 600 ] || exit 9; sleep 0.05; done', "sh", dir];
    try {
      expect(await hammer(ex, barrier, 8, 8)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(pool.connectionsOpened).toBeGreaterThanOrEqual(4);
  });
});
