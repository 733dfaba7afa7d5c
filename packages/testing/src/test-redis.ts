import { randomBytes } from "node:crypto";
import IORedis from "ioredis";

export const TEST_REDIS_URL = process.env.SVC_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

export interface TestRedis {
  url: string;
  /** BullMQ prefix unique to this test file. */
  prefix: string;
  /** Delete only this prefix's keys (never FLUSHALL on the shared server). */
  cleanup(): Promise<void>;
}

/** A unique key prefix on the shared Redis for one test file. */
export function createTestRedis(label = "t"): TestRedis {
  const prefix = `svctest-${label
    .replace(/[^a-z0-9]/gi, "")
    .toLowerCase()
    .slice(0, 20)}-${randomBytes(4).toString("hex")}`;
  return {
    url: TEST_REDIS_URL,
    prefix,
    async cleanup() {
      await deletePrefix(TEST_REDIS_URL, prefix);
    },
  };
}

/** SCAN + UNLINK every key under `prefix:`. */
export async function deletePrefix(url: string, prefix: string): Promise<void> {
  const r = new IORedis(url, { maxRetriesPerRequest: 1 });
  try {
    let cursor = "0";
    do {
      const [next, keys] = await r.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 500);
      cursor = next;
      if (keys.length) await r.unlink(...keys);
    } while (cursor !== "0");
  } finally {
    r.disconnect();
  }
}
