import { Router, type Response } from "express";
import type { FlowRow } from "@svc/db";
import { syncFlowWithRun } from "@svc/flows";
import type { AssistantDeps } from "../deps";
import { allTaskInstances } from "../observe";
import { flowIdOf } from "./intent";

/** Flow statuses after which the stream ends (awaiting_approval stays open: an approval may follow). */
const ENDS_STREAM = new Set(["completed", "failed", "rejected", "cancelled", "needs_input"]);

function send(res: Response, event: string, data: unknown): void {
  // A poll may finish after the client went away: never write to an ended response.
  if (!res.writableEnded && !res.destroyed) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

/**
 * GET /orchestrator/flows/:id/events: Server-Sent Events. `phase` when a phase completes, `flow`
 * when the status changes, `task` when a task instance changes state (Postgres polled), and a
 * final `run` event with the end state; comment lines keep idle connections open.
 */
export function flowEventRoutes(d: AssistantDeps): Router {
  const r = Router();
  r.get("/orchestrator/flows/:flow_id/events", async (req, res) => {
    const flowId = flowIdOf(req.params.flow_id);
    await d.store.require(flowId);
    let closed = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = () => {
      if (closed) return;
      closed = true;
      clearInterval(heartbeat);
      clearTimeout(timer);
      res.end();
    };
    // Capped per process (503 with Retry-After past SVC_MAX_OPEN_STREAMS); ended at once on shutdown.
    if (!d.sse.streams.admit(res, finish)) return;
    res.status(200).set({ "Content-Type": "text/event-stream", "Cache-Control": "no-cache, no-transform", Connection: "keep-alive", "X-Accel-Buffering": "no" });
    res.flushHeaders();
    res.write(`retry: 2000\n\n`);

    const phasesSent = new Set<string>();
    const taskStates = new Map<string, string>();
    let lastStatus: string | null = null;
    const heartbeat = setInterval(() => void (!res.writableEnded && res.write(`: ping\n\n`)), d.sse.heartbeatMs);
    req.on("close", finish);

    const emitTasks = async (flow: FlowRow) => {
      if (!flow.dag_id || !flow.run_id) return;
      for (const ti of await allTaskInstances(d.engine, flow.dag_id, flow.run_id)) {
        const state = ti.state ?? "none";
        if (taskStates.get(ti.task_id) === state || (state === "none" && !taskStates.has(ti.task_id))) continue;
        taskStates.set(ti.task_id, state);
        send(res, "task", { flow_id: flow.flow_id, dag_id: flow.dag_id, run_id: flow.run_id, task_id: ti.task_id, state: ti.state, try_number: ti.try_number });
      }
    };

    const poll = async () => {
      const row = await d.store.require(flowId);
      const flow = await syncFlowWithRun(d.store, d.engine, row);
      for (const phase of flow.phases_completed ?? []) {
        if (phasesSent.has(phase)) continue;
        phasesSent.add(phase);
        send(res, "phase", { flow_id: flowId, phase, status: flow.status });
      }
      if (flow.status !== lastStatus) {
        lastStatus = flow.status;
        send(res, "flow", { flow_id: flowId, status: flow.status, dag_id: flow.dag_id, run_id: flow.run_id, summary: flow.summary });
      }
      await emitTasks(flow);
      if (ENDS_STREAM.has(flow.status)) {
        const run = flow.dag_id && flow.run_id ? await d.engine.getDagRun(flow.dag_id, flow.run_id).catch(() => null) : null;
        send(res, "run", { flow_id: flowId, flow_status: flow.status, dag_id: flow.dag_id, run_id: flow.run_id, state: run?.state ?? null, end_date: run?.end_date ?? null });
        finish();
      }
    };

    const loop = async () => {
      if (closed) return;
      try {
        await poll();
      } catch (e) {
        d.logger.warn({ flowId, err: String(e) }, "flow event poll failed");
        send(res, "error", { message: "status temporarily unavailable; retrying" });
      }
      if (!closed) timer = setTimeout(() => void loop(), d.sse.pollMs);
    };
    await loop();
  });
  return r;
}
