export { QUEUE_NAMES, schedulerJobSchema, taskJobSchema, parseTaskJob, intentJobSchema, taskJobId, runEvalJobId, jobDagHash } from "./names";
export type { QueueName, SchedulerJob, TaskJob, IntentJob } from "./names";
export { createRedis, createQueues, pingRedis } from "./connection";
export type { RedisSettings, Queues } from "./connection";
