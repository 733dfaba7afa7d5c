import { createDb, type Db } from "@svc/db";
import { createTestDb, dbOutage, waitFor, type DbOutage, type TestDb } from "@svc/testing";
import { createLogWriter } from "./log-writer";

let tdb: TestDb;
let outage: DbOutage;
const pools: Db[] = [];
beforeAll(async () => {
  tdb = await createTestDb("logwriter");
  outage = dbOutage(tdb.name);
});
afterEach(async () => {
  await outage.end();
});
afterAll(async () => {
  for (const p of pools) await p.destroy().catch(() => undefined);
  await tdb.drop();
});

/** The writer's own pool (cut off by the outage like a worker's), with quick connection failures. */
const writerPool = () => {
  const db = createDb(tdb.url, { max: 1, connectTimeoutMs: 1000 });
  pools.push(db);
  return db;
};
const key = (taskId: string) => ({ dagId: "d", runId: "r", taskId, tryNumber: 1 });
const stored = async (taskId: string) => (await tdb.db.selectFrom("task_log").select(["line", "stream"]).where("task_id", "=", taskId).orderBy("id").execute()).map((r) => r.line);
const numbered = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `line ${from + i}`);
const fast = { intervalMs: 10, retryMs: [50] };

test("lines whose insert fails while the database is unreachable are kept and written once it is back: in order, none lost, none twice", async () => {
  let failures = 0;
  const w = createLogWriter(writerPool(), key("retry"), () => failures++, fast);
  for (const l of numbered(1, 20)) w.write(l);
  await waitFor(async () => (await stored("retry")).length === 20, { what: "first lines stored" });

  await outage.begin();
  for (const l of numbered(21, 60)) w.write(l);
  await waitFor(() => failures >= 2, { what: "inserts failing during the outage" });
  for (const l of numbered(61, 80)) w.write(l);
  await outage.end();

  await waitFor(async () => (await stored("retry")).length >= 80, { what: "every line stored after the outage" });
  expect(await stored("retry")).toEqual(numbered(1, 80));
  expect(await w.detach()).toEqual([]);
});

test("detach hands back every line an outage kept from the database, in order, for the outcome commit", async () => {
  let failures = 0;
  const w = createLogWriter(writerPool(), key("detach"), () => failures++, fast);
  w.write("before");
  await waitFor(async () => (await stored("detach")).length === 1, { what: "first line stored" });
  await outage.begin();
  for (const l of numbered(1, 30)) w.write(l, l.endsWith("7") ? "stderr" : "stdout");
  await waitFor(() => failures >= 1, { what: "a failed insert" });
  w.write("task succeeded", "system");
  const rest = await w.detach();
  expect(rest.map((l) => l.line)).toEqual([...numbered(1, 30), "task succeeded"]);
  expect(rest.filter((l) => l.stream === "stderr").map((l) => l.line)).toEqual(["line 7", "line 17", "line 27"]);
  w.write("after detach"); // an operator still printing after its try ended: ignored
  await outage.end();
  expect(await stored("detach")).toEqual(["before"]);
});

test("an outage longer than the buffer holds drops the oldest unwritten lines and says how many in their place", async () => {
  let failures = 0;
  // About 10 bytes a line: the buffer holds some 50 lines.
  const w = createLogWriter(writerPool(), key("shed"), () => failures++, { ...fast, maxBufferedBytes: 500 });
  await outage.begin();
  w.write("line 1");
  await waitFor(() => failures >= 1, { what: "a failed insert" });
  for (const l of numbered(2, 200)) w.write(l);
  await outage.end();
  await waitFor(async () => (await stored("shed")).at(-1) === "line 200", { what: "the newest line stored" });
  const lines = await stored("shed");
  const note = /^(\d+) log lines dropped: the database was unreachable/.exec(lines[0]!);
  expect(note).not.toBeNull();
  const dropped = Number(note![1]);
  // The oldest are gone, the newest kept in order, and the note counts exactly the missing ones.
  expect(lines.slice(1)).toEqual(numbered(dropped + 1, 200));
  expect(lines.length - 1).toBeLessThanOrEqual(50);
  expect(await w.detach()).toEqual([]);
});

test("past the per-try size cap output is counted, not stored, and one line at the end says how much was left out", async () => {
  const w = createLogWriter(writerPool(), key("cap"), () => undefined, { ...fast, maxBytes: 100 });
  w.write("try 1 started", "system");
  // "line N\n" is 7 bytes for N < 10, 8 after: lines 1–9 (63 bytes) and 10–13 (32) fit in 100.
  for (const l of numbered(1, 40)) w.write(l);
  w.write("task succeeded", "system"); // the try's own notes are always kept
  await w.flush();
  const rest = await w.detach();
  await waitFor(async () => (await stored("cap")).includes("task succeeded"), { what: "lines stored" });
  const all = [...(await stored("cap")), ...rest.map((l) => l.line)];
  expect(all).toEqual([
    "try 1 started",
    ...numbered(1, 13),
    "task succeeded",
    "log size cap of 100 bytes per try reached: 27 more lines (216 bytes) not stored (SVC_LOG_MAX_BYTES_PER_TRY)",
  ]);
});
