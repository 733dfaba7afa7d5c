import { exitCodeOf } from "./exit-code";

test("a command's own exit code passes through and nothing is written", async () => {
  const err: string[] = [];
  await expect(exitCodeOf(Promise.resolve(3), (t) => err.push(t))).resolves.toBe(3);
  expect(err).toEqual([]);
});

test("a rejection that escapes the command becomes one error line and exit code 1", async () => {
  const err: string[] = [];
  await expect(exitCodeOf(Promise.reject(new Error("could not close the database pool")), (t) => err.push(t))).resolves.toBe(1);
  expect(err).toEqual(["error: could not close the database pool\n"]);
});

test("a rejection with a non-Error value prints no object dump", async () => {
  const err: string[] = [];
  // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- a non-Error rejection is the case under test
  await expect(exitCodeOf(Promise.reject({ password: "secret" }), (t) => err.push(t))).resolves.toBe(1);
  expect(err).toEqual(["error: unexpected failure\n"]);
});
