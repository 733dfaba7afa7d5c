import { createQueueCheck } from "./queue-check";

test("a PING that succeeded within the window is not sent again while the connection stays ready", async () => {
  let t = 0;
  let ready = true;
  const pings: number[] = [];
  const check = createQueueCheck({ ping: async () => (pings.push(t), "PONG"), ready: () => ready }, 1000, () => t);
  await check();
  t = 999;
  await check();
  expect(pings).toEqual([0]);
  t = 1000;
  await check();
  expect(pings).toEqual([0, 1000]);
  // The connection dropped (Redis stopped): ping at once, and its failure refuses the request.
  ready = false;
  t = 1001;
  await check();
  expect(pings).toEqual([0, 1000, 1001]);
});

test("a failed PING is never remembered, and without ready() every check pings", async () => {
  let fail = true;
  let n = 0;
  const check = createQueueCheck({ ping: async () => (n++, fail ? Promise.reject(new Error("Connection is closed.")) : "PONG"), ready: () => true });
  await expect(check()).rejects.toThrow("Connection is closed.");
  fail = false;
  await check();
  await check();
  expect(n).toBe(2);
  const plain = createQueueCheck({ ping: async () => (n++, "PONG") });
  await plain();
  await plain();
  expect(n).toBe(4);
});
