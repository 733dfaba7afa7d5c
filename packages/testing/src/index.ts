export { createTestDb } from "./test-db";
export type { TestDb } from "./test-db";
export { createTestRedis, deletePrefix, TEST_REDIS_URL } from "./test-redis";
export type { TestRedis } from "./test-redis";
export { freePort, waitFor } from "./ports";
export { startRedisServer } from "./redis-server";
export type { OwnRedis } from "./redis-server";
