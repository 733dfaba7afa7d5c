import { freePort, TEST_REDIS_URL } from "@svc/testing";
import { createProducerRedis, pingRedis } from "./connection";

test("a producer connection answers PING in the moment it is created: the ping waits for the connection, not failing for want of an offline queue", async () => {
  const r = createProducerRedis(TEST_REDIS_URL);
  try {
    expect(r.status).not.toBe("ready");
    await expect(r.ping()).rejects.toThrow(/enableOfflineQueue/);
    const fresh = createProducerRedis(TEST_REDIS_URL);
    try {
      await expect(pingRedis(fresh)).resolves.toBe("PONG");
    } finally {
      fresh.disconnect();
    }
  } finally {
    r.disconnect();
  }
});

test("a Redis that is not there still fails the ping, after the wait", async () => {
  const r = createProducerRedis(`redis://127.0.0.1:${await freePort()}`, 500);
  try {
    await expect(pingRedis(r, 300)).rejects.toThrow();
  } finally {
    r.disconnect();
  }
});
