import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { loadConfig } from "@svc/config";
import { startEngineRuntime } from "@svc/engine";
import { silentLogger } from "@svc/logger";
import { defaultOperators } from "@svc/operators";
import { createTestDb, createTestRedis, waitFor, type TestDb, type TestRedis } from "@svc/testing";

const BIN = path.resolve(__dirname, "../bin/svc-engine");

const VM_DAG = `dag_id: vm_deploy
description: Deploy a VM
owners: [ops, infra]
params:
  vm_name: {type: string, pattern: "^[a-z][a-z0-9-]*$"}
  cpus: {type: integer, default: 2}
tasks:
  - task_id: create
    operator: noop
  - task_id: wait
    operator: noop
    depends_on: [create]
  - task_id: report
    operator: noop
    depends_on: [wait]
    trigger_rule: all_done
`;
const HELLO_DAG = "dag_id: hello\ntasks:\n  - task_id: say\n    operator: noop\n";

// Every case starts the real binary (tsx + the engine) several times: seconds each on a busy machine.
jest.setTimeout(180_000);

let tdb: TestDb;
let redis: TestRedis;
let dagsDir: string;

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run the real binary with the test database, Redis prefix and DAG folder. */
function cli(args: string[], env: Record<string, string> = {}): Promise<Result> {
  return new Promise((resolve) => {
    execFile(
      BIN,
      args,
      {
        env: { PATH: process.env.PATH ?? "", DATABASE_URL: tdb.url, REDIS_URL: redis.url, SVC_REDIS_PREFIX: redis.prefix, SVC_DAGS_DIR: dagsDir, ...env },
        timeout: 30000,
      },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  tdb = await createTestDb("cli");
  redis = createTestRedis("cli");
  dagsDir = mkdtempSync(path.join(os.tmpdir(), "svc-cli-dags-"));
  writeFileSync(path.join(dagsDir, "vm_deploy.yaml"), VM_DAG);
  const r = await cli(["dags", "reserialize"]);
  expect(r).toMatchObject({ code: 0, stdout: expect.stringContaining("1 DAG(s) (1 added") });
});
afterAll(async () => {
  await tdb.drop();
  await redis.cleanup();
  rmSync(dagsDir, { recursive: true, force: true });
});

describe("svc-engine CLI (real binary)", () => {
  test("--help works globally, per group and per command", async () => {
    const g = await cli(["--help"]);
    expect(g.code).toBe(0);
    expect(g.stdout).toContain("dags list-import-errors");
    expect((await cli(["dags", "--help"])).stdout).toContain("list-runs");
    const t = await cli(["dags", "trigger", "--help"]);
    expect(t).toMatchObject({ code: 0, stdout: expect.stringContaining("-c, --conf JSON") });
    expect((await cli(["tasks", "logs", "-h"])).stdout).toContain("--follow");
  });

  test("dags list prints Airflow's columns as a table and as JSON", async () => {
    const table = await cli(["dags", "list"]);
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^dag_id\s+\| fileloc\s+\| owners\s+\| is_paused$/);
    expect(lines[1]).toMatch(/^=+\+=+\+=+\+=+$/);
    expect(lines[2]).toMatch(/^vm_deploy \| .*vm_deploy\.yaml \| ops,infra \| True$/);
    const json = await cli(["dags", "list", "-o", "json"]);
    expect(JSON.parse(json.stdout)).toEqual([{ dag_id: "vm_deploy", fileloc: expect.stringMatching(/vm_deploy\.yaml$/), owners: "ops,infra", is_paused: "True" }]);
    expect((await cli(["dags", "list", "-o", "yaml"])).stdout).toContain("- dag_id: vm_deploy");
    expect((await cli(["dags", "list", "-o", "xml"])).code).toBe(2);
  });

  test("reserialize picks up a new DAG file at once", async () => {
    writeFileSync(path.join(dagsDir, "hello.yaml"), HELLO_DAG);
    expect((await cli(["dags", "reserialize"])).stdout).toContain("1 added");
    const ids = JSON.parse((await cli(["dags", "list", "-o", "json"])).stdout).map((d: { dag_id: string }) => d.dag_id);
    expect(ids).toEqual(["hello", "vm_deploy"]);
  });

  test("unpause and pause print the new state", async () => {
    expect((await cli(["dags", "unpause", "hello", "-o", "plain"])).stdout).toMatch(/hello\s+False/);
    expect((await cli(["dags", "pause", "hello", "-o", "json"])).stdout).toContain('"is_paused": "True"');
  });

  test("trigger creates a run that list-runs shows, newest first, filterable by state and limited", async () => {
    const t = await cli(["dags", "trigger", "vm_deploy", "-c", '{"vm_name": "web01"}', "-r", "cli-1", "-l", "2024-05-01T00:00:00Z", "-o", "json"]);
    expect(t.code).toBe(0);
    expect(JSON.parse(t.stdout)[0]).toMatchObject({ dag_id: "vm_deploy", dag_run_id: "cli-1", state: "queued", conf: { vm_name: "web01", cpus: "2" } });
    await cli(["dags", "trigger", "vm_deploy", "--conf", '{"vm_name": "web02"}', "--run-id", "cli-2", "--logical-date", "2024-05-02T00:00:00Z"]);
    const runs = await cli(["dags", "list-runs", "-d", "vm_deploy"]);
    expect(runs.code).toBe(0);
    const lines = runs.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^dag_id\s+\| run_id\s+\| state\s+\| execution_date\s+\| start_date\s+\| end_date$/);
    expect(lines.slice(2).map((l) => l.split(" | ")[1]!.trim())).toEqual(["cli-2", "cli-1"]);
    expect(JSON.parse((await cli(["dags", "list-runs", "-d", "vm_deploy", "--limit", "1", "-o", "json"])).stdout).map((r: { run_id: string }) => r.run_id)).toEqual(["cli-2"]);
    expect((await cli(["dags", "list-runs", "-d", "vm_deploy", "--state", "success"])).stdout).toBe("No data found\n");
    expect((await cli(["dags", "list-runs"])).code).toBe(2);
  });

  test("bad JSON in -c, invalid params, duplicate run ids and unknown DAGs fail with one line and a non-zero exit code", async () => {
    const bad = await cli(["dags", "trigger", "vm_deploy", "-c", "{vm_name: web01}"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error: -c\/--conf is not valid JSON: .+\n$/);
    const arr = await cli(["dags", "trigger", "vm_deploy", "-c", "[1]"]);
    expect(arr).toMatchObject({ code: 1, stderr: expect.stringContaining("must be a JSON object") });
    const invalid = await cli(["dags", "trigger", "vm_deploy", "-c", '{"vm_name": "Web 01"}']);
    expect(invalid).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: .*vm_name: must match pattern.*\n$/) });
    expect(await cli(["dags", "trigger", "vm_deploy", "-c", '{"vm_name": "x"}', "-r", "cli-1"])).toMatchObject({ code: 1, stderr: expect.stringContaining("already exists") });
    const unknown = await cli(["dags", "trigger", "nope"]);
    expect(unknown).toMatchObject({ code: 1, stderr: "error: DAG with dag_id: 'nope' not found\n" });
    expect((await cli(["dags", "unpause", "nope"])).code).toBe(1);
    expect((await cli(["dags", "frobnicate"])).code).toBe(2);
    expect((await cli(["dags", "list", "--bogus"])).code).toBe(2);
  });

  test("list-import-errors: No data found and exit 0 when clean; the broken file and exit 1 otherwise", async () => {
    expect(await cli(["dags", "list-import-errors"])).toMatchObject({ code: 0, stdout: "No data found\n" });
    writeFileSync(path.join(dagsDir, "broken.yaml"), "dag_id: broken\ntasks:\n  - task_id: a\n    operator: teleport\n");
    expect((await cli(["dags", "reserialize"])).stdout).toContain("1 import error(s)");
    const errs = await cli(["dags", "list-import-errors", "-o", "json"]);
    expect(errs.code).toBe(1);
    expect(JSON.parse(errs.stdout)).toEqual([{ filepath: expect.stringMatching(/broken\.yaml$/), error: expect.stringContaining("teleport") }]);
    const table = await cli(["dags", "list-import-errors"]);
    expect(table.stdout).toMatch(/^filepath\s+\| error/);
    rmSync(path.join(dagsDir, "broken.yaml"));
    await cli(["dags", "reserialize"]);
  });

  test("dags show prints tasks in dependency order and the edges", async () => {
    const text = await cli(["dags", "show", "vm_deploy"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("params: cpus=2, vm_name (required)");
    expect(text.stdout).toMatch(/create \(noop\)\n\s+wait \(noop\) <- create\n\s+report \(noop\) <- wait \[all_done\]/);
    expect(text.stdout).toContain("create -> wait\n  wait -> report");
    const json = JSON.parse((await cli(["dags", "show", "vm_deploy", "-o", "json"])).stdout);
    expect(json.edges).toEqual([
      { from: "create", to: "wait" },
      { from: "wait", to: "report" },
    ]);
    expect((await cli(["dags", "show", "nope"])).code).toBe(1);
  });

  test("tasks logs prints a try's lines", async () => {
    await tdb.db.updateTable("task_instance").set({ state: "success", try_number: 1 }).where("run_id", "=", "cli-1").where("task_id", "=", "create").execute();
    await tdb.db
      .insertInto("task_log")
      .values(["first line", "second line"].map((line) => ({ dag_id: "vm_deploy", run_id: "cli-1", task_id: "create", try_number: 1, stream: "stdout" as const, line })))
      .execute();
    const r = await cli(["tasks", "logs", "vm_deploy", "cli-1", "create"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\{stdout\} first line\n.*\{stdout\} second line\n$/);
    expect((await cli(["tasks", "logs", "vm_deploy", "cli-1", "create", "--follow"])).stdout).toContain("second line");
    expect((await cli(["tasks", "logs", "vm_deploy", "cli-1", "nope"])).code).toBe(1);
  });

  test("tasks logs --follow prints a running task's lines as they come and exits when the try ends", async () => {
    writeFileSync(path.join(dagsDir, "sleeper.yaml"), "dag_id: sleeper\ntasks:\n  - task_id: nap\n    operator: sleep\n    args: {seconds: 5, print_every: 0.5}\n");
    await cli(["dags", "reserialize"]);
    await cli(["dags", "unpause", "sleeper"]);
    const config = loadConfig({ DATABASE_URL: tdb.url, REDIS_URL: redis.url, SVC_REDIS_PREFIX: redis.prefix, SVC_DAGS_DIR: dagsDir, SVC_LOG_LEVEL: "silent" });
    const runtime = startEngineRuntime({ db: tdb.db, config, logger: silentLogger(), operators: defaultOperators() });
    try {
      expect((await cli(["dags", "trigger", "sleeper", "-r", "f1"])).code).toBe(0);
      await waitFor(async () => (await tdb.db.selectFrom("task_instance").select("state").where("run_id", "=", "f1").executeTakeFirst())?.state === "running", {
        timeoutMs: 20000,
        what: "nap running",
      });
      const r = await cli(["tasks", "logs", "sleeper", "f1", "nap", "--follow"]);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      const ticks = r.stdout
        .split("\n")
        .filter((l) => l.includes("tick"))
        .map((l) => Number(/tick (\d+)/.exec(l)![1]));
      // Timer drift on a busy machine can cost the last tick; every printed tick must be there once, in order.
      expect(ticks.length).toBeGreaterThanOrEqual(6);
      expect(ticks).toEqual(Array.from({ length: ticks.length }, (_, i) => i + 1));
      expect((await tdb.db.selectFrom("task_instance").select("state").where("run_id", "=", "f1").executeTakeFirstOrThrow()).state).toBe("success");
    } finally {
      await runtime.stop();
    }
  });

  test("an unreachable database is one line naming host:port, without the password", async () => {
    const r = await cli(["dags", "list"], { DATABASE_URL: "postgres://postgres:hunter2@127.0.0.1:1/svc" });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("error: cannot reach the metadata database at 127.0.0.1:1 (ECONNREFUSED); is Postgres running and DATABASE_URL right?\n");
    expect(r.stdout + r.stderr).not.toContain("hunter2");
  });

  test("an unreachable Redis only warns: the trigger still succeeds", async () => {
    const r = await cli(["dags", "trigger", "hello", "-r", "no-redis"], { REDIS_URL: "redis://127.0.0.1:1" });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("warning: could not notify the scheduler");
    expect(r.stdout).toContain("no-redis");
  });

  test("db migrate creates a missing database and applies the migrations, then reports it is up to date", async () => {
    const name = `${tdb.name}_mig`;
    const url = tdb.url.replace(/\/[^/]+$/, `/${name}`);
    try {
      const first = await cli(["db", "migrate"], { DATABASE_URL: url });
      expect(first.code).toBe(0);
      expect(first.stdout).toContain("Created the metadata database");
      expect(first.stdout).toContain("Applied migration 001-engine");
      expect(await cli(["db", "migrate"], { DATABASE_URL: url })).toMatchObject({ code: 0, stdout: "Database is up to date\n" });
    } finally {
      await sql`drop database if exists ${sql.id(name)} with (force)`.execute(tdb.db);
    }
  });
});
