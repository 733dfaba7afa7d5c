import { Worker, type ConnectionOptions } from "bullmq";
import { createRedis, QUEUE_NAMES, taskJobSchema } from "@svc/queue";
import type { RuntimeDeps } from "./deps";
import { executeTry } from "./execute-try";
import { startHeartbeat } from "./heartbeat";

export interface EngineWorker {
  /** Stop taking jobs; running tries are cancelled after `graceMs` and committed as failed/retry. */
  close(graceMs?: number): Promise<void>;
}

/** Consume the `tasks` queue with the configured concurrency; heartbeat for zombie detection. */
export function startWorker(deps: RuntimeDeps): EngineWorker {
  const connection = createRedis(deps.config.redisUrl);
  const running = new Set<AbortController>();
  const worker = new Worker(
    QUEUE_NAMES.tasks,
    async (job) => {
      const data = taskJobSchema.parse(job.data);
      const ac = new AbortController();
      running.add(ac);
      try {
        await executeTry(deps, data, ac.signal);
      } catch (e) {
        // Never fail the BullMQ job: state lives in Postgres; reconciliation/zombie handling recover.
        deps.logger.error({ ...data, err: String(e) }, "try execution error");
      } finally {
        running.delete(ac);
      }
    },
    { connection: connection as ConnectionOptions, prefix: deps.config.redisPrefix, concurrency: deps.config.worker.concurrency, lockDuration: 30000, maxStalledCount: 5 },
  );
  worker.on("error", (e) => deps.logger.warn({ err: String(e) }, "worker queue error"));
  const hb = startHeartbeat(deps.db, "worker", deps.instanceId, deps.config.worker.heartbeatMs, (e) => deps.logger.warn({ err: String(e) }, "heartbeat failed"), () => ({ running: running.size, concurrency: deps.config.worker.concurrency }));
  deps.logger.info({ instanceId: deps.instanceId, concurrency: deps.config.worker.concurrency }, "worker started");
  return {
    async close(graceMs = 10000) {
      const closing = worker.close();
      const t = setTimeout(() => running.forEach((ac) => ac.abort(new Error("worker shutting down"))), graceMs);
      await closing;
      clearTimeout(t);
      await hb.stop();
      connection.disconnect();
    },
  };
}
