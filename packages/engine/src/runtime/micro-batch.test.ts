import { microBatch } from "./micro-batch";

test("calls made in the same tick run as one batch and each gets its own result", async () => {
  const batches: number[][] = [];
  const double = microBatch(async (xs: number[]) => (batches.push(xs), xs.map((x) => x * 2)));
  const out = await Promise.all([double(1), double(2), double(3)]);
  expect(out).toEqual([2, 4, 6]);
  expect(batches).toEqual([[1, 2, 3]]);
  expect(await double(5)).toBe(10);
  expect(batches).toEqual([[1, 2, 3], [5]]);
});

test("a batch is cut at the maximum size, and a failing batch rejects each of its callers", async () => {
  const sizes: number[] = [];
  const f = microBatch(async (xs: number[]) => {
    sizes.push(xs.length);
    if (xs.includes(-1)) throw new Error("bad batch");
    return xs;
  }, 2);
  await Promise.all([f(1), f(2), f(3)]);
  expect(sizes).toEqual([2, 1]);
  const r = await Promise.allSettled([f(-1), f(4)]);
  expect(r.map((x) => x.status)).toEqual(["rejected", "rejected"]);
});

test("while a batch is in flight, new calls wait and go out together in the next batch", async () => {
  const batches: number[][] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const f = microBatch(
    async (xs: number[]) => {
      batches.push(xs);
      if (batches.length === 1) await gate;
      return xs;
    },
    { maxInFlight: 1 },
  );
  const first = f(1);
  await new Promise((r) => setImmediate(r));
  const later = [f(2), f(3), f(4)];
  await new Promise((r) => setTimeout(r, 20));
  expect(batches).toEqual([[1]]); // 2..4 wait for the round in flight
  release();
  expect(await Promise.all([first, ...later])).toEqual([1, 2, 3, 4]);
  expect(batches).toEqual([[1], [2, 3, 4]]);
});

test("with a batch in flight, a second one goes out only once eagerAt calls wait", async () => {
  const batches: number[][] = [];
  const gates: (() => void)[] = [];
  const f = microBatch(
    async (xs: number[]) => {
      batches.push(xs);
      await new Promise<void>((r) => gates.push(r));
      return xs;
    },
    { maxInFlight: 2, eagerAt: 3 },
  );
  const tick = () => new Promise((r) => setImmediate(r));
  const calls = [f(1)];
  await tick();
  calls.push(f(2), f(3));
  await tick();
  expect(batches).toEqual([[1]]); // two waiting: below eagerAt, no second batch yet
  calls.push(f(4));
  await tick();
  expect(batches).toEqual([[1], [2, 3, 4]]); // three waiting: the second batch goes while the first is in flight
  calls.push(f(5));
  await tick();
  expect(batches.length).toBe(2); // both slots busy
  gates[0]!();
  await tick();
  await tick();
  expect(batches.length).toBe(2); // one batch still in flight and one call waiting: below eagerAt
  gates[1]!();
  await tick();
  await tick();
  expect(batches).toEqual([[1], [2, 3, 4], [5]]); // nothing in flight: a lone call goes at once
  gates[2]!();
  expect(await Promise.all(calls)).toEqual([1, 2, 3, 4, 5]);
});
