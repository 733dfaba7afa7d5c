import { createTestRedis } from "@svc/testing";
import { rawBullmqThroughput } from "./raw-bullmq";
import { profiled } from "./profile";
async function main() {
  const redis = createTestRedis("rawprof");
  for (let i = 0; i < 3; i++) await rawBullmqThroughput(redis.url, `${redis.prefix}-w${i}`, 8000, 4, 4);
  const r = await profiled("/tmp/raw.cpuprofile", () => rawBullmqThroughput(redis.url, `${redis.prefix}-p`, 8000, 4, 4));
  console.log(r);
  await redis.cleanup();
  process.exit(0);
}
void main();
