import { QueueEvents, type Queue } from "bullmq";
import type { FlowRow } from "@svc/db";
import type { ProcessResult } from "@svc/flows";
import type { Logger } from "@svc/logger";
import { createRedis, QUEUE_NAMES, type IntentJob } from "@svc/queue";

/** What came back from the orchestrator: its result, or nothing within the wait (the flow moves on regardless). */
export interface IntentOutcome {
  queued: boolean;
  result?: ProcessResult;
}

/** Request/response over the `intents` queue. */
export interface IntentClient {
  /**
   * Enqueue the flow's job and wait up to `waitMs` for the orchestrator's result (0: do not wait,
   * as for `Prefer: respond-async`). `round` tells apart later jobs of the same action (a flow
   * answered after needs_input is planned again). `created`: the new flow as inserted, carried by
   * its first plan job so the orchestrator need not read it.
   */
  submit(flowId: string, action: IntentJob["action"], waitMs: number, round?: string, created?: FlowRow): Promise<IntentOutcome>;
  close(): Promise<void>;
}

const ENQUEUE_TIMEOUT_MS = 3000;

/** The result's flow with its dates as dates again (the queue carries them as ISO strings). */
function revived(r: ProcessResult | undefined): ProcessResult | undefined {
  if (!r?.flow) return r;
  return { ...r, flow: { ...r.flow, created_at: new Date(r.flow.created_at), updated_at: new Date(r.flow.updated_at) } };
}

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    t = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(t));
}

/**
 * The client side of the `intents` queue. Job ids are `<action>|<flow_id>`: one plan and one
 * approval per flow. Completed jobs are kept an hour so a late waiter still finds the result.
 */
export function createIntentClient(o: { queue: Queue; redisUrl: string; prefix: string; logger: Logger }): IntentClient {
  // QueueEvents blocks on the event stream: it needs a connection of its own.
  const eventsConnection = createRedis(o.redisUrl);
  const events = new QueueEvents(QUEUE_NAMES.intents, { connection: eventsConnection, prefix: o.prefix });
  events.on("error", (e) => o.logger.warn({ err: String(e) }, "intents events error"));

  return {
    async submit(flowId, action, waitMs, round, created) {
      let job;
      try {
        // ioredis queues commands while Redis is down; bound the wait so the request still answers.
        job = await within(
          o.queue.add(action, created ? { flowId, action, flow: created } : { flowId, action }, {
            jobId: `${action}|${flowId}${round ? `|${round}` : ""}`,
            attempts: 5,
            backoff: { type: "exponential", delay: 500 },
            removeOnComplete: { age: 3600 },
            removeOnFail: { age: 86400 },
          }),
          ENQUEUE_TIMEOUT_MS,
          "enqueue",
        );
      } catch (e) {
        // The flow is in Postgres; the orchestrator's sweep enqueues it again once the queue is back.
        o.logger.warn({ flowId, action, err: String(e) }, "intent job not enqueued");
        return { queued: false };
      }
      if (waitMs <= 0) return { queued: true };
      try {
        return { queued: true, result: revived((await job.waitUntilFinished(events, waitMs)) as ProcessResult) };
      } catch (e) {
        o.logger.info({ flowId, action, err: String(e) }, "no orchestrator result within the wait");
        return { queued: true };
      }
    },
    async close() {
      await events.close().catch(() => undefined);
      eventsConnection.disconnect();
    },
  };
}
