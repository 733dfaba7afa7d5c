import type { Queue } from "bullmq";
import type { FlowRow } from "@svc/db";
import { microBatch } from "@svc/engine";
import type { ProcessResult } from "@svc/flows";
import type { Logger } from "@svc/logger";
import { createRedis, INTENT_JOB_OPTIONS, QUEUE_NAMES, type IntentJob } from "@svc/queue";
import { createJobWaiters } from "./job-waiters";

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
 *
 * A new flow's first plan job cannot exist before (its flow id is new): its wait is set up before
 * the job is added and settled from the queue's event stream, and the jobs of intents arriving
 * together are added in one round trip (addBulk). Other jobs (an approval, an answer's plan) may
 * have finished already, so they take BullMQ's own wait, which checks that first.
 */
export function createIntentClient(o: { queue: Queue; redisUrl: string; prefix: string; logger: Logger }): IntentClient {
  // The event reader blocks on the stream: it needs a connection of its own.
  const eventsConnection = createRedis(o.redisUrl);
  const waiters = createJobWaiters({
    queueName: QUEUE_NAMES.intents,
    prefix: o.prefix,
    connection: eventsConnection,
    onError: (e) => o.logger.warn({ err: String(e) }, "intents events error"),
  });
  const addTogether = microBatch(
    async (jobs: { jobId: string; data: IntentJob }[]) => {
      await o.queue.addBulk(jobs.map((j) => ({ name: j.data.action, data: j.data, opts: { ...INTENT_JOB_OPTIONS, jobId: j.jobId } })));
      return jobs.map(() => true);
    },
    { max: 128, maxInFlight: 2, eagerAt: 8 },
  );

  const enqueued = async (flowId: string, action: IntentJob["action"], add: () => Promise<unknown>): Promise<boolean> => {
    try {
      // ioredis queues commands while Redis is down; bound the wait so the request still answers.
      await within(add(), ENQUEUE_TIMEOUT_MS, "enqueue");
      return true;
    } catch (e) {
      // The flow is in Postgres; the orchestrator's sweep enqueues it again once the queue is back.
      o.logger.warn({ flowId, action, err: String(e) }, "intent job not enqueued");
      return false;
    }
  };
  const noResult = (flowId: string, action: string, err: unknown) => {
    o.logger.info({ flowId, action, err: String(err) }, "no orchestrator result within the wait");
    return { queued: true };
  };

  return {
    async submit(flowId, action, waitMs, round, created) {
      const jobId = `${action}|${flowId}${round ? `|${round}` : ""}`;
      if (created && action === "plan" && !round) {
        const wait = waitMs > 0 ? waiters.expect(jobId) : undefined;
        // Added once the event reader has its starting point: the job's events all come after it.
        const add = async () => (await waiters.events(), addTogether({ jobId, data: { flowId, action, flow: created } }));
        if (!(await enqueued(flowId, action, add))) {
          wait?.cancel();
          return { queued: false };
        }
        if (!wait) return { queued: true };
        const result = (await wait.result(waitMs)) as ProcessResult | undefined;
        return result ? { queued: true, result: revived(result) } : noResult(flowId, action, `no result within ${waitMs} ms`);
      }
      let job: Awaited<ReturnType<Queue["add"]>> | undefined;
      const queued = await enqueued(flowId, action, async () => (job = await o.queue.add(action, { flowId, action }, { ...INTENT_JOB_OPTIONS, jobId })));
      if (!queued || !job) return { queued: false };
      if (waitMs <= 0) return { queued: true };
      try {
        return { queued: true, result: revived((await job.waitUntilFinished(await waiters.events(), waitMs)) as ProcessResult) };
      } catch (e) {
        return noResult(flowId, action, e);
      }
    },
    async close() {
      await waiters.close();
      eventsConnection.disconnect();
    },
  };
}
