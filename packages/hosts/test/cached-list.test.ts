import { createTestDb, sampleHostRow, type TestDb } from "@svc/testing";
import { createCachedHostList, createHostInventory } from "../src";

let tdb: TestDb;
beforeAll(async () => {
  tdb = await createTestDb("hostscache");
});
afterAll(async () => tdb?.drop());

const host = (name: string, address: string) => sampleHostRow(name, address);

test("the cached inventory is read once per TTL: reads within it share the rows, a read after it sees new hosts", async () => {
  const inv = createHostInventory(tdb.db);
  let now = 1_000_000;
  const cached = createCachedHostList(tdb.db, 5_000, () => now);
  await inv.insert(host("a", "10.0.0.1"), "test");
  const [first, shared] = await Promise.all([cached.list(), cached.list()]);
  expect(first.map((h) => h.name)).toEqual(["a"]);
  expect(shared).toBe(first);
  await inv.insert(host("b", "10.0.0.2"), "test");
  now += 4_999;
  expect((await cached.list()).map((h) => h.name)).toEqual(["a"]);
  now += 1;
  expect((await cached.list()).map((h) => h.name)).toEqual(["a", "b"]);
});
