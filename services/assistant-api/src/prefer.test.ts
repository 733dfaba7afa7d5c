import { prefersAsync } from "./prefer";

const req = (prefer?: string) => ({ get: (name: string) => (name === "Prefer" ? prefer : undefined) }) as never;

test("respond-async is found among other preferences, with values, parameters and any case", () => {
  expect(prefersAsync(req("respond-async"))).toBe(true);
  expect(prefersAsync(req("return=minimal, Respond-Async"))).toBe(true);
  expect(prefersAsync(req("respond-async; foo=bar, wait=10"))).toBe(true);
});

test("no Prefer header, other preferences and look-alike tokens do not ask for an async answer", () => {
  expect(prefersAsync(req())).toBe(false);
  expect(prefersAsync(req("wait=10"))).toBe(false);
  expect(prefersAsync(req("respond-asynchronously"))).toBe(false);
  expect(prefersAsync(req("return=respond-async"))).toBe(false);
});
