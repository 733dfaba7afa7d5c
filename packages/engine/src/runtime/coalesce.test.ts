import { createCoalescer } from "./coalesce";

test("requests for a key during a run coalesce into one more run with the highest version", async () => {
  const calls: [string, number][] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const run = createCoalescer(async (key, version) => {
    calls.push([key, version]);
    if (calls.length === 1) await gate;
  });
  const first = run("a", 1);
  const more = [run("a", 2), run("a", 5), run("a", 3)];
  const other = run("b", 1);
  release();
  await Promise.all([first, ...more, other]);
  expect(calls).toEqual([
    ["a", 1],
    ["b", 1],
    ["a", 5],
  ]);
});

test("a failing run rejects its waiters and frees the key", async () => {
  let n = 0;
  const run = createCoalescer(async () => {
    if (++n === 1) throw new Error("boom");
  });
  await expect(run("k", 1)).rejects.toThrow("boom");
  await expect(run("k", 2)).resolves.toBeUndefined();
  expect(n).toBe(2);
});

test("with joinersWait false, requests joining a pass in flight resolve at once while the first waits for the extra pass", async () => {
  const calls: number[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const run = createCoalescer(
    async (_key, version) => {
      calls.push(version);
      if (calls.length === 1) await gate;
    },
    { joinersWait: false },
  );
  let firstDone = false;
  const first = run("d", 0).then(() => (firstDone = true));
  await run("d", 0);
  await run("d", 0);
  // The joiners are done while the first pass is still held: nothing has run twice yet.
  expect(calls).toEqual([0]);
  expect(firstDone).toBe(false);
  release();
  await first;
  // One extra pass for both joiners, finished before the first request resolved.
  expect(calls).toEqual([0, 0]);
});
