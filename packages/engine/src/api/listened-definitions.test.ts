import { createClient, createNotificationFeed, DAG_CHANGE_CHANNEL, type NotificationFeed } from "@svc/db";
import { waitFor } from "@svc/testing";
import { listenedDefinitions } from "./listened-definitions";
import { createApiFixture, type ApiFixture } from "./test-helpers";

// The catalogue kept in memory between DAG changes: Postgres notifies every commit that changes
// what it lists (triggers on dag and import_error), and only those.
let f: ApiFixture;
let feed: NotificationFeed;
const APP = `svc-listen-test-${process.pid}`;

beforeAll(async () => {
  f = await createApiFixture("listened");
  feed = createNotificationFeed(f.tdb.url, DAG_CHANGE_CHANNEL, { applicationName: APP, retryMs: 100 });
  await waitFor(() => feed.listening(), { timeoutMs: 10000, what: "the feed listening" });
});
afterAll(async () => {
  await feed?.close();
  await f?.close();
});

function counting() {
  const reads = { n: 0 };
  const lister = listenedDefinitions({ listDagDefinitions: (o) => (reads.n++, f.api.listDagDefinitions(o)) }, feed);
  return { lister, reads };
}

test("the list is read once while no DAG changes, and again after a pause is committed, which it then shows", async () => {
  const { lister, reads } = counting();
  const first = await lister.listDagDefinitions({ onlyActive: true });
  expect(await lister.listDagDefinitions({ onlyActive: true })).toEqual(first);
  expect(reads.n).toBe(1);

  const before = feed.generation();
  await f.api.setPaused("hello", false);
  await waitFor(() => feed.generation() > before, { timeoutMs: 5000, what: "the change notified" });
  const after = await lister.listDagDefinitions({ onlyActive: true });
  expect(reads.n).toBe(2);
  expect(after.find((d) => d.dag_id === "hello")?.is_paused).toBe(false);
  await lister.listDagDefinitions({ onlyActive: true });
  expect(reads.n).toBe(2);
});

test("the triggers notify changes the catalogue shows and stay quiet on others (a parse time, an unchanged import error)", async () => {
  const c = createClient(f.tdb.url);
  await c.connect();
  try {
    const heard: string[] = [];
    c.on("notification", (n) => heard.push(n.payload ?? ""));
    await c.query(`listen ${DAG_CHANGE_CHANNEL}`);
    const upTo = async (marker: string) => {
      await c.query("select pg_notify($1, $2)", [DAG_CHANGE_CHANNEL, marker]);
      await waitFor(() => heard.includes(marker), { timeoutMs: 5000, what: `marker ${marker}` });
      return heard.splice(0).filter((p) => p !== marker);
    };
    await f.db.updateTable("dag").set({ last_parsed_at: new Date() }).execute();
    await f.db.insertInto("import_error").values({ filename: "/nowhere.yaml", stacktrace: "boom", timestamp: new Date() }).execute();
    expect(await upTo("m1")).toEqual([""]);
    await f.db.updateTable("import_error").set({ stacktrace: "boom again", timestamp: new Date() }).execute();
    expect(await upTo("m2")).toEqual([]);
    await f.db.deleteFrom("import_error").execute();
    await f.db.updateTable("dag").set({ is_paused: true }).where("dag_id", "=", "vm_deploy").execute(); // paused already: no change
    await f.db.updateTable("dag").set({ is_paused: false }).where("dag_id", "=", "vm_deploy").execute();
    expect(await upTo("m3")).toEqual(["", ""]);
  } finally {
    await c.end();
  }
});

test("while the feed's connection is lost nothing is kept; once it is back the list is kept again", async () => {
  const { lister, reads } = counting();
  await lister.listDagDefinitions();
  const g = feed.generation();
  const admin = createClient(f.tdb.url);
  await admin.connect();
  try {
    await admin.query("select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1", [APP]);
  } finally {
    await admin.end();
  }
  await waitFor(() => feed.generation() > g && !feed.listening(), { timeoutMs: 5000, what: "the loss seen" });
  await lister.listDagDefinitions();
  await lister.listDagDefinitions();
  expect(reads.n).toBe(3);
  await waitFor(() => feed.listening(), { timeoutMs: 10000, what: "the feed listening again" });
  await lister.listDagDefinitions();
  await lister.listDagDefinitions();
  expect(reads.n).toBe(4);
});
