import { spawn } from "node:child_process";
import { join } from "node:path";
import pg from "pg";

const URL = process.env.SVC_TEST_ADMIN_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const CONNECTION_TS = join(__dirname, "connection.ts");

// A separate process: an unhandled 'error' event kills it, where in jest's own process it would
// only be reported. The child holds a client in an open transaction (as a Kysely transaction
// does between two statements), prints its backend's pid and waits for "go" on stdin.
const CHILD = `
const { createPool } = require(${JSON.stringify(CONNECTION_TS)});
(async () => {
  const pool = createPool(process.env.DB_URL, { applicationName: "svc-conn-test" });
  const client = await pool.connect();
  await client.query("begin");
  const { rows } = await client.query("select pg_backend_pid() as pid");
  console.log("pid " + rows[0].pid);
  await new Promise((r) => process.stdin.once("data", r));
  const second = await client.query("select 1").then(() => "answered", () => "rejected");
  client.release();
  const after = await pool.query("select 2 as n");
  console.log("statement on the broken client " + second + "; next query " + after.rows[0].n);
  await pool.end();
})();
`;

test("a pooled client whose server connection is killed mid-transaction does not crash the process: its statement rejects and the pool answers the next query", async () => {
  const child = spawn(process.execPath, ["--import", "tsx", "-e", CHILD], { env: { ...process.env, DB_URL: URL }, stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  const pid = await new Promise<number>((resolve, reject) => {
    const t = setInterval(() => {
      const m = /pid (\d+)/.exec(out);
      if (m) {
        clearInterval(t);
        resolve(Number(m[1]));
      }
    }, 50);
    setTimeout(() => reject(new Error(`no pid after 15 s: out=${out} err=${err}`)), 15_000).unref();
    void exited.then(() => {
      clearInterval(t);
      reject(new Error(`child ended early: ${err}`));
    });
  });
  const admin = new pg.Client({ connectionString: URL });
  await admin.connect();
  try {
    const r = await admin.query("select pg_terminate_backend($1) as done", [pid]);
    expect(r.rows[0].done).toBe(true);
  } finally {
    await admin.end();
  }
  // The server's FATAL message and the socket's close arrive while no statement is running.
  await new Promise((r) => setTimeout(r, 500));
  child.stdin.end("go\n");
  const code = await exited;
  expect({ code, err: err.includes("Unhandled 'error' event") ? err : "" }).toEqual({ code: 0, err: "" });
  expect(out).toContain("statement on the broken client rejected; next query 2");
}, 30_000);
