export {
  QUEUE_NAMES,
  schedulerJobSchema,
  taskJobSchema,
  parseTaskJob,
  intentJobSchema,
  INTENT_JOB_OPTIONS,
  taskJobId,
  runEvalJobId,
  jobDagHash,
  hostQueueName,
  taskQueueName,
} from "./names";
export type { QueueName, SchedulerJob, TaskJob, IntentJob } from "./names";
export { createRedis, createProducerRedis, createQueues, openRedis, pingRedis } from "./connection";
export { isSentinelUrl, parseSentinelUrl, redactRedisUrl, reconnectOnReplicaError } from "./redis-url";
export type { SentinelTarget } from "./redis-url";
export { checkRedisKeepsJobs, redisEvictionPolicy, refuseEvictingRedis, RedisEvictsJobsError } from "./redis-policy";
export type { RedisPolicyCheck } from "./redis-policy";
export type { RedisSettings, Queues } from "./connection";
export { stallOptions } from "./stall";
