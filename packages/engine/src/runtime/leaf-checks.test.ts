import { leafChecks } from "./leaf-checks";

const job = (runId: string, taskId: string) => ({ dagId: "d", runId, taskId, tryNumber: 1 });

test("a leaf defers its check while another try of its run is in hand; the last to settle owes it", () => {
  const lc = leafChecks();
  lc.begin(job("r", "a"));
  lc.begin(job("r", "b"));
  lc.begin(job("other", "x"));
  expect(lc.defer(job("r", "a"))).toBe(true); // b is still in hand
  expect(lc.end(job("r", "a"))).toBe(false);
  expect(lc.defer(job("r", "b"))).toBe(false); // the last in hand asks itself
  expect(lc.end(job("r", "b"))).toBe(true); // and settling it reports the deferred check as owed
  expect(lc.defer(job("other", "x"))).toBe(false);
  expect(lc.end(job("other", "x"))).toBe(false); // nothing was deferred to it
});

test("a try that settles without landing (dropped, lost, failed) still asks for the leaves that deferred to it", () => {
  const lc = leafChecks();
  lc.begin(job("r", "a"));
  lc.begin(job("r", "b"));
  expect(lc.defer(job("r", "a"))).toBe(true);
  expect(lc.end(job("r", "a"))).toBe(false);
  expect(lc.end(job("r", "b"))).toBe(true); // b never reached defer: it was dropped
  lc.begin(job("r", "c")); // a new burst of the same run starts clean
  expect(lc.defer(job("r", "c"))).toBe(false);
  expect(lc.end(job("r", "c"))).toBe(false);
});
