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
  const f = microBatch(async (xs: number[]) => {
    batches.push(xs);
    if (batches.length === 1) await gate;
    return xs;
  }, { maxInFlight: 1 });
  const first = f(1);
  await new Promise((r) => setImmediate(r));
  const later = [f(2), f(3), f(4)];
  await new Promise((r) => setTimeout(r, 20));
  expect(batches).toEqual([[1]]); // 2..4 wait for the round in flight
  release();
  expect(await Promise.all([first, ...later])).toEqual([1, 2, 3, 4]);
  expect(batches).toEqual([[1], [2, 3, 4]]);
});
