export { QUEUE_NAMES, schedulerJobSchema, parseTaskJob, intentJobSchema, INTENT_JOB_OPTIONS, taskJobId, runEvalJobId, jobDagHash, hostQueueName, taskQueueName } from "./names";
export type { SchedulerJob, TaskJob, IntentJob } from "./names";
export { createRedis, createProducerRedis, createQueues, openRedis, pingRedis } from "./connection";
export { refuseEvictingRedis } from "./redis-policy";
export type { Queues } from "./connection";
export { stallOptions } from "./stall";
