import { z } from "zod";

/** The three BullMQ queues; services talk only through these and Postgres. */
export const QUEUE_NAMES = { intents: "intents", scheduler: "scheduler", tasks: "tasks" } as const;
export type QueueName = (typeof QUEUE_NAMES)[keyof typeof QUEUE_NAMES];

/** `scheduler` queue jobs. `run`: evaluate one run at a version; `dag`: start queued runs; `cron`: scheduled trigger. */
export const schedulerJobSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("run"), dagId: z.string(), runId: z.string(), version: z.number().int() }),
  // schedule: the DAG's schedule or pause state may have changed, so its cron scheduler is synced too
  // (a trigger or a run's end only lets queued runs start).
  z.object({ kind: z.literal("dag"), dagId: z.string(), schedule: z.boolean().optional() }),
  z.object({ kind: z.literal("cron"), dagId: z.string() }),
]);
export type SchedulerJob = z.infer<typeof schedulerJobSchema>;

/** `tasks` queue job: one task-instance try. */
export const taskJobSchema = z.object({
  dagId: z.string(),
  runId: z.string(),
  taskId: z.string(),
  tryNumber: z.number().int().min(1),
  /**
   * The start of the run's definition hash (jobDagHash), when the scheduler knows it: lets a worker
   * look the task up in its cache before claiming it.
   */
  dagHash: z.string().optional(),
  /** The hypervisor host the try was routed to: the job is in that host's queue (hostQueueName). */
  host: z.string().optional(),
});
export type TaskJob = z.infer<typeof taskJobSchema>;

/**
 * The definition hash as a task job carries it: its first 16 hex characters (64 bits), plenty to
 * tell apart the definitions one worker caches. The full hash made every job 48 bytes longer in
 * Redis and in both processes (measured on raw BullMQ jobs: about 6% of their throughput). A
 * worker only uses it to find the definition of an instant try, whose finish the database still
 * checks against the task's own operator.
 */
export const jobDagHash = (hash: string): string => hash.slice(0, 16);

/**
 * `taskJobSchema.parse` for the worker's hot path: plain checks for a well-formed job (a zod parse
 * cost more than the rest of a no-op try's JavaScript), zod only to word the error of a bad one.
 */
export function parseTaskJob(data: unknown): TaskJob {
  const d = data as Partial<Record<keyof TaskJob, unknown>> | null;
  if (
    d !== null &&
    typeof d === "object" &&
    typeof d.dagId === "string" &&
    typeof d.runId === "string" &&
    typeof d.taskId === "string" &&
    typeof d.tryNumber === "number" &&
    Number.isInteger(d.tryNumber) &&
    d.tryNumber >= 1 &&
    (d.dagHash === undefined || typeof d.dagHash === "string") &&
    (d.host === undefined || typeof d.host === "string")
  ) {
    const job: TaskJob = { dagId: d.dagId, runId: d.runId, taskId: d.taskId, tryNumber: d.tryNumber };
    if (d.dagHash !== undefined) job.dagHash = d.dagHash;
    if (d.host !== undefined) job.host = d.host;
    return job;
  }
  return taskJobSchema.parse(data);
}

/**
 * The queue of the tries routed to one hypervisor host: consumed only by workers serving that host,
 * and only while its probe finds it up. Host names are `[a-z0-9-]` (the inventory's rule), so the
 * name never holds BullMQ's ':' key separator.
 */
export const hostQueueName = (host: string): string => `${QUEUE_NAMES.tasks}@${host}`;

/** The queue a task job belongs in: its host's, or the shared `tasks` queue. */
export const taskQueueName = (j: Pick<TaskJob, "host">): string => (j.host ? hostQueueName(j.host) : QUEUE_NAMES.tasks);

/** `intents` queue job: process one flow (the assistant-api waits for the result). */
export const intentJobSchema = z.object({
  flowId: z.string(),
  action: z.enum(["plan", "approve", "cancel"]),
  /** The new flow as the API inserted it (a first plan job only): planned from this copy, not read again. */
  flow: z.record(z.string(), z.unknown()).optional(),
});
export type IntentJob = z.infer<typeof intentJobSchema>;

/**
 * Options of every `intents` job (the API's and the sweep's): retried with back-off, kept an hour
 * once completed so a late waiter still finds the result, a day once failed.
 */
export const INTENT_JOB_OPTIONS = {
  attempts: 5,
  backoff: { type: "exponential", delay: 500 },
  removeOnComplete: { age: 3600 },
  removeOnFail: { age: 86400 },
} as const;

// BullMQ job ids must not contain ':' (its key separator); '|' never occurs in our ids' parts' validation.
const sep = "|";
const enc = (s: string) => s.replace(/[|:]/g, (c) => (c === "|" ? "%7C" : "%3A"));

/** Deterministic id for a task try: a duplicate enqueue of the same try is a no-op. */
export function taskJobId(j: TaskJob): string {
  return ["ti", enc(j.dagId), enc(j.runId), enc(j.taskId), String(j.tryNumber)].join(sep);
}

/** Id for "evaluate run at version": duplicates of the same version coalesce. */
export function runEvalJobId(dagId: string, runId: string, version: number): string {
  return ["run", enc(dagId), enc(runId), String(version)].join(sep);
}
