import { leafChecks } from "./leaf-checks";

const job = (runId: string, taskId: string) => ({ dagId: "d", runId, taskId, tryNumber: 1 });

test("a leaf defers its check while another try of its run is in hand; the last to settle owes it", () => {
  const lc = leafChecks();
  lc.begin(job("r", "a"));
  lc.begin(job("r", "b"));
  lc.begin(job("other", "x"));
  expect(lc.defer(job("r", "a"))).toBe(true); // b is still in hand
  expect(lc.end(job("r", "a"))).toBeUndefined();
  expect(lc.defer(job("r", "b"))).toBe(false); // the last in hand asks itself
  expect(lc.end(job("r", "b"))).toBe("check"); // and settling it reports the deferred check as owed
  expect(lc.defer(job("other", "x"))).toBe(false);
  expect(lc.end(job("other", "x"))).toBeUndefined(); // nothing was deferred to it
});

test("a try that settles without landing (dropped, lost, failed) still asks for the leaves that deferred to it", () => {
  const lc = leafChecks();
  lc.begin(job("r", "a"));
  lc.begin(job("r", "b"));
  expect(lc.defer(job("r", "a"))).toBe(true);
  expect(lc.end(job("r", "a"))).toBeUndefined();
  expect(lc.end(job("r", "b"))).toBe("check"); // b never reached defer: it was dropped
  lc.begin(job("r", "c")); // a new burst of the same run starts clean
  expect(lc.defer(job("r", "c"))).toBe(false);
  expect(lc.end(job("r", "c"))).toBeUndefined();
});

test("a success defers the run's evaluation only while this worker holds a try of another upstream of each of its joins", () => {
  const lc = leafChecks();
  const join = new Set(["m1", "m2", "m3"]);
  lc.begin(job("r", "m1"));
  lc.begin(job("r", "x"));
  // x is no upstream of the join: m1 must evaluate itself.
  expect(lc.deferJoins(job("r", "m1"), [join])).toBe(false);
  lc.begin(job("r", "m2"));
  expect(lc.deferJoins(job("r", "m1"), [join])).toBe(true);
  // Two joins: each needs one of its upstream tasks in hand.
  expect(lc.deferJoins(job("r", "m1"), [join, new Set(["m1", "y"])])).toBe(false);
  expect(lc.end(job("r", "m1"))).toBeUndefined();
  expect(lc.end(job("r", "m2"))).toBeUndefined();
  // The last try of the run to settle owes the evaluation, which outranks a leaf's check.
  expect(lc.defer(job("r", "x"))).toBe(false);
  expect(lc.end(job("r", "x"))).toBe("evaluate");
});
