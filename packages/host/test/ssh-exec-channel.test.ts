// A command that ends at once can have its exit status arrive before the caller listens for it.
// These tests read the channel late on purpose and check that its end was still recorded.
import { setTimeout as sleep } from "node:timers/promises";
import { startSshd, type TestSshd } from "@svc/testing";
import { SshExecutor, SshPool } from "../src";
import { type SshOptions } from "../src/ssh-options";
import { openExecChannel } from "../src/ssh-exec-channel";

let sshd: TestSshd;
let pool: SshPool;
let opts: SshOptions;

beforeAll(async () => {
  sshd = await startSshd();
  pool = new SshPool();
  opts = { host: sshd.host, port: sshd.port, user: sshd.user, keyPath: sshd.keyPath, knownHostsPath: sshd.knownHostsPath, connectTimeoutMs: 30_000 };
});
afterAll(async () => {
  await pool?.closeAll();
  await sshd?.stop();
});

jest.setTimeout(180_000);

/** Open `command`, let it end, and only then start reading the channel. */
async function readLate(command: string) {
  const lease = await pool.acquire(opts);
  const opened = await openExecChannel(lease, command);
  await sleep(1500);
  let out = "";
  opened.ch.on("data", (d: Buffer) => (out += d.toString()));
  opened.ch.stderr.resume();
  opened.ch.end();
  await opened.closed;
  lease.release();
  return { status: opened.status, out };
}

test("the exit status of a command that ended before the channel was read is kept", async () => {
  expect(await readLate("echo done; exit 3")).toEqual({ status: { code: 3 }, out: "done\n" });
  expect(await readLate("true")).toEqual({ status: { code: 0 }, out: "" });
});

test("the signal that ended a command before the channel was read is kept", async () => {
  expect((await readLate("kill -TERM $$")).status).toEqual({ signal: "SIGTERM" });
  // The executor reports it as a shell does: 128 + the signal's number.
  expect(await new SshExecutor(opts, pool).run(["sh", "-c", "kill -TERM $$"])).toMatchObject({ code: 143, signal: "SIGTERM" });
});
