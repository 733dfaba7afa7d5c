import { mkdirSync, mkdtempSync, renameSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { DagDefinition } from "@svc/dags";
import { builtinOperators } from "./fixtures/operators";
import { createTestDb, waitFor, type TestDb } from "@svc/testing";
import { syncDagFolder, type Notifier } from "../src";
import { getImportErrorForDag } from "../src/processor/import-errors";
import { watchDagFolder } from "../src/processor/watch-dag-folder";

const catalog = builtinOperators();
const settings = { domain: "lab.example.com", cluster_name: "ocp", admin_user: "admin" };

const helloYaml = (message = "hi", schedule = "null") => `dag_id: hello
description: Say hello
tags: [demo]
owners: [ops]
schedule: ${schedule}
max_active_runs: 2
params:
  who: {type: string, default: "{{ settings.admin_user }}"}
tasks:
  - {task_id: say, operator: noop, args: {message: "${message} {{ params.who }}"}}
`;
const otherYaml = `dag_id: other
tasks:
  - {task_id: wait, operator: sleep, args: {seconds: 0.1}}
`;
const brokenYaml = `dag_id: hello
tasks:
  - {task_id: say, operator: no_such_operator}
`;

describe("syncDagFolder against Postgres", () => {
  let tdb: TestDb;
  let dir: string;
  const changed: string[] = [];
  const notifier: Notifier = { runChanged: async () => undefined, dagChanged: async (dagId) => void changed.push(dagId) };
  const sync = () => syncDagFolder({ db: tdb.db, dagsDir: dir, catalog, settings, notifier });
  const write = (file: string, text: string) => writeFileSync(path.join(dir, file), text);
  const dagRow = (dagId: string) => tdb.db.selectFrom("dag").selectAll().where("dag_id", "=", dagId).executeTakeFirstOrThrow();
  const importErrors = () => tdb.db.selectFrom("import_error").selectAll().orderBy("filename").execute();

  beforeAll(async () => {
    tdb = await createTestDb("dagproc");
    dir = mkdtempSync(path.join(os.tmpdir(), "svc-dagproc-"));
  });
  afterAll(async () => {
    await tdb.drop();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    changed.length = 0;
  });

  it("adds a new DAG paused, with its definition, hash, file token and resolved settings", async () => {
    write("hello.yaml", helloYaml());
    const report = await sync();
    expect(report).toEqual({ added: ["hello"], updated: [], unchanged: [], deactivated: [], errors: [] });
    const row = await dagRow("hello");
    expect(row).toMatchObject({
      fileloc: path.join(dir, "hello.yaml"),
      is_paused: true,
      is_active: true,
      description: "Say hello",
      tags: ["demo"],
      owners: ["ops"],
      schedule: null,
      max_active_runs: 2,
    });
    expect(Buffer.from(row.file_token, "base64url").toString()).toBe("hello.yaml");
    expect(row.hash).toMatch(/^[0-9a-f]{64}$/);
    const def = row.definition as DagDefinition;
    expect(def.tasks[0]!.args).toEqual({ message: "hi {{ params.who }}" });
    expect(row.params).toEqual({ who: { type: "string", default: "admin" } });
    expect(changed).toEqual(["hello"]);
  });

  it("reports an unchanged DAG as unchanged and keeps its pause state", async () => {
    await tdb.db.updateTable("dag").set({ is_paused: false }).where("dag_id", "=", "hello").execute();
    const before = await dagRow("hello");
    const report = await sync();
    expect(report).toEqual({ added: [], updated: [], unchanged: ["hello"], deactivated: [], errors: [] });
    const after = await dagRow("hello");
    expect(after.is_paused).toBe(false);
    expect(after.hash).toBe(before.hash);
    expect(after.last_parsed_at.getTime()).toBeGreaterThanOrEqual(before.last_parsed_at.getTime());
    expect(changed).toEqual([]);
  });

  it("updates definition and hash of a changed file, keeps the pause state and notifies", async () => {
    const before = await dagRow("hello");
    write("hello.yaml", helloYaml("hello", "'@daily'"));
    write("other.yaml", otherYaml);
    const report = await sync();
    expect(report).toEqual({ added: ["other"], updated: ["hello"], unchanged: [], deactivated: [], errors: [] });
    const after = await dagRow("hello");
    expect(after.hash).not.toBe(before.hash);
    expect(after.schedule).toBe("@daily");
    expect((after.definition as DagDefinition).tasks[0]!.args).toEqual({ message: "hello {{ params.who }}" });
    expect(after.is_paused).toBe(false);
    expect((await dagRow("other")).is_paused).toBe(true);
    expect(changed.sort()).toEqual(["hello", "other"]);
  });

  it("keeps the last good definition of a DAG whose file breaks, writes an import error, and loads the other files", async () => {
    const good = await dagRow("hello");
    write("hello.yaml", brokenYaml);
    const report = await sync();
    expect(report.added).toEqual([]);
    expect(report.deactivated).toEqual([]);
    expect(report.unchanged).toEqual(["other"]);
    expect(report.errors).toEqual([{ filename: path.join(dir, "hello.yaml"), message: "line 3: task say: unknown operator 'no_such_operator'" }]);
    const row = await dagRow("hello");
    expect(row).toMatchObject({ is_active: true, is_paused: false, hash: good.hash });
    const errs = await importErrors();
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatchObject({ filename: path.join(dir, "hello.yaml"), stacktrace: "line 3: task say: unknown operator 'no_such_operator'" });
    expect(await getImportErrorForDag(tdb.db, "hello")).toMatchObject({ filename: path.join(dir, "hello.yaml") });
    expect(await getImportErrorForDag(tdb.db, "other")).toBeUndefined();
    expect(await getImportErrorForDag(tdb.db, "missing")).toBeUndefined();
  });

  it("keeps the import error's first-seen timestamp while the problem is unchanged", async () => {
    const [first] = await importErrors();
    await sync();
    const [again] = await importErrors();
    expect(again!.timestamp.getTime()).toBe(first!.timestamp.getTime());
    expect(again!.import_error_id).toBe(first!.import_error_id);
  });

  it("removes the import error once the file is fixed", async () => {
    write("hello.yaml", helloYaml("fixed"));
    const report = await sync();
    expect(report.errors).toEqual([]);
    expect(report.updated).toEqual(["hello"]);
    expect(await importErrors()).toEqual([]);
    expect(await getImportErrorForDag(tdb.db, "hello")).toBeUndefined();
  });

  it("deactivates a DAG whose file is removed, and reactivates it when the file comes back", async () => {
    unlinkSync(path.join(dir, "other.yaml"));
    const report = await sync();
    expect(report.deactivated).toEqual(["other"]);
    expect((await dagRow("other")).is_active).toBe(false);
    expect(changed).toEqual(["other"]);
    write("other.yaml", otherYaml);
    const back = await sync();
    expect(back.updated).toEqual(["other"]);
    expect(await dagRow("other")).toMatchObject({ is_active: true, is_paused: true });
  });

  it("follows a DAG to its new file when the file is renamed", async () => {
    renameSync(path.join(dir, "other.yaml"), path.join(dir, "renamed.yaml"));
    const report = await sync();
    expect(report).toMatchObject({ updated: ["other"], deactivated: [] });
    const row = await dagRow("other");
    expect(row.fileloc).toBe(path.join(dir, "renamed.yaml"));
    expect(Buffer.from(row.file_token, "base64url").toString()).toBe("renamed.yaml");
  });

  it("gives a duplicate dag_id in a later file an import error and leaves the first DAG alone", async () => {
    write("zz.yaml", otherYaml);
    const report = await sync();
    expect(report.errors).toEqual([{ filename: path.join(dir, "zz.yaml"), message: "line 1: dag_id: 'other' is already defined in renamed.yaml" }]);
    expect((await dagRow("other")).fileloc).toBe(path.join(dir, "renamed.yaml"));
    unlinkSync(path.join(dir, "zz.yaml"));
    expect((await sync()).errors).toEqual([]);
  });

  it("serialises concurrent syncs: both succeed and each DAG has one row", async () => {
    write("third.yaml", "dag_id: third\ntasks: [{task_id: a, operator: noop}]\n");
    const [a, b] = await Promise.all([sync(), sync()]);
    expect([...a.added, ...b.added]).toEqual(["third"]);
    const n = await tdb.db
      .selectFrom("dag")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("dag_id", "=", "third")
      .executeTakeFirstOrThrow();
    expect(Number(n.n)).toBe(1);
  });

  it("throws and changes nothing when the DAG folder is missing", async () => {
    const before = await tdb.db.selectFrom("dag").select(["dag_id", "is_active"]).orderBy("dag_id").execute();
    await expect(syncDagFolder({ db: tdb.db, dagsDir: path.join(dir, "gone"), catalog })).rejects.toThrow("does not exist");
    expect(await tdb.db.selectFrom("dag").select(["dag_id", "is_active"]).orderBy("dag_id").execute()).toEqual(before);
  });
});

describe("watchDagFolder", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "svc-dagwatch-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("calls onChange after a file is written, including in a subfolder", async () => {
    let calls = 0;
    const stop = watchDagFolder(dir, () => void calls++, { debounceMs: 20, rescanIntervalMs: 60_000 });
    try {
      writeFileSync(path.join(dir, "a.yaml"), "dag_id: a\n");
      await waitFor(() => calls >= 1, { timeoutMs: 10_000, what: "onChange after write" });
      const seen = calls;
      mkdirSync(path.join(dir, "sub"));
      await waitFor(() => calls > seen, { timeoutMs: 10_000, what: "onChange after mkdir" });
      const seen2 = calls;
      writeFileSync(path.join(dir, "sub", "b.yaml"), "dag_id: b\n");
      await waitFor(() => calls > seen2, { timeoutMs: 10_000, what: "onChange after write in subfolder" });
    } finally {
      stop();
    }
  });

  it("rescans periodically without file events, and never overlaps runs of onChange", async () => {
    let running = 0;
    let maxRunning = 0;
    let calls = 0;
    const stop = watchDagFolder(
      dir,
      async () => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        await new Promise((r) => setTimeout(r, 50));
        calls++;
        running--;
      },
      { debounceMs: 1, rescanIntervalMs: 10 },
    );
    try {
      for (let i = 0; i < 5; i++) writeFileSync(path.join(dir, `f${i}.yaml`), "x: 1\n");
      await waitFor(() => calls >= 4, { timeoutMs: 10_000, what: "periodic rescans" });
      expect(maxRunning).toBe(1);
    } finally {
      stop();
    }
  });

  it("stops calling onChange after stop()", async () => {
    let calls = 0;
    const stop = watchDagFolder(dir, () => void calls++, { debounceMs: 1, rescanIntervalMs: 20 });
    await waitFor(() => calls >= 1, { timeoutMs: 10_000, what: "first rescan" });
    stop();
    const at = calls;
    writeFileSync(path.join(dir, "late.yaml"), "x: 1\n");
    await new Promise((r) => setTimeout(r, 200));
    expect(calls).toBe(at);
  });

  it("keeps rescanning when the folder does not exist yet", async () => {
    let calls = 0;
    const stop = watchDagFolder(path.join(dir, "later"), () => void calls++, { debounceMs: 1, rescanIntervalMs: 20 });
    try {
      await waitFor(() => calls >= 2, { timeoutMs: 10_000, what: "rescans without a folder" });
    } finally {
      stop();
    }
  });
});
