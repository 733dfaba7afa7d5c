import type { EngineApi } from "@svc/engine";
import { ACTIVE_PLANNING_STATUSES, syncFlowWithRun, type FlowStore } from "@svc/flows";
import type { Logger } from "@svc/logger";
import { INTENT_JOB_OPTIONS, type Queues } from "@svc/queue";

export interface SweepOptions {
  store: FlowStore;
  engine: Pick<EngineApi, "getDagRun">;
  queues: Pick<Queues, "intents">;
  logger: Logger;
  intervalMs: number;
  resumeAfterMs: number;
}

/**
 * The orchestrator's recovery loop. Postgres is the truth and Redis may lose jobs: a flow still
 * needing work but untouched for a while gets its job again (the job id dedupes between several
 * orchestrators); in_progress flows whose run finished become completed or failed.
 */
export function startSweep(o: SweepOptions): { stop(): Promise<void> } {
  let running: Promise<void> | null = null;
  let stopped = false;

  const pass = async () => {
    for (const flow of await o.store.listIdle(ACTIVE_PLANNING_STATUSES, o.resumeAfterMs, 50)) {
      const jobId = `resume|${flow.flow_id}|${new Date(flow.updated_at).getTime()}`;
      await o.queues.intents.add("plan", { flowId: flow.flow_id, action: "plan" }, { ...INTENT_JOB_OPTIONS, jobId });
      o.logger.info({ flowId: flow.flow_id, status: flow.status }, "flow resumed after its job was lost");
    }
    for (const flow of await o.store.listIdle(["in_progress"], 0, 200)) {
      const now = await syncFlowWithRun(o.store, o.engine, flow);
      if (now.status !== flow.status) o.logger.info({ flowId: flow.flow_id, status: now.status }, "flow finished");
    }
  };

  const tick = () => {
    if (running || stopped) return;
    running = pass()
      .catch((e) => o.logger.warn({ err: String(e) }, "flow sweep failed"))
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(tick, o.intervalMs);
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
