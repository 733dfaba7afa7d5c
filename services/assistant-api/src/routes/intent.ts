import { Router, type Request, type Response } from "express";
import { paramsInvalidError } from "@svc/dags";
import { ParamsInvalidError } from "@svc/errors";
import type { FlowRow } from "@svc/db";
import { answerFlow, approveFlow, cancelFlow, FLOW_ID_PATTERN, isSettledStatus, syncFlowWithRun, toFlowView } from "@svc/flows";
import { NotFoundError } from "@svc/errors";
import { actorOf, parseInput, requireReachable, roleAtLeast, roleOf, sendProblem } from "@svc/http";
import type { AssistantDeps } from "../deps";
import { intentIdempotency } from "../idempotent-intent";
import { appliedAsync, prefersAsync } from "../prefer";
import { createQueueCheck } from "../queue-check";
import { AnswerRequestSchema, CancelRequestSchema, IntentRequestSchema } from "../schemas";

/** 200 once the flow has settled or its run was created; 202 while the orchestrator still works on it. */
const statusFor = (row: FlowRow) => (isSettledStatus(row.status) || row.status === "in_progress" ? 200 : 202);

/** A path flow id, or a 404 (a malformed id names no flow). */
export function flowIdOf(raw: unknown): string {
  const id = typeof raw === "string" ? raw : "";
  if (!FLOW_ID_PATTERN.test(id)) throw new NotFoundError("flow_not_found", `Flow '${id.slice(0, 80)}' not found`);
  return id;
}

/** POST /orchestrator/intent, GET /orchestrator/flows/:id, answer, approve and cancel. */
export function intentRoutes(d: AssistantDeps): Router {
  const r = Router();
  const ui = d.config.workflowUiUrl;
  // `Prefer: respond-async`: answered once the work is accepted (the flow and its job written), 202 while it goes on.
  const answer = (res: Response, row: FlowRow, async = false) => {
    const view = toFlowView(row, ui);
    if (async) appliedAsync(res, view.status_endpoint);
    res.status(statusFor(row)).json(view);
  };
  const waitMs = (req: Request) => (prefersAsync(req) ? 0 : d.intentWaitMs);

  // The flow is planned through the queue: with Redis down the intent is refused (503) before a flow is made.
  const queueUp = createQueueCheck(d.redis);
  r.post("/orchestrator/intent", requireReachable(queueUp), async (req, res) => {
    const body = parseInput(IntentRequestSchema, req.body, "body");
    const idem = await intentIdempotency(d.db, req.get("Idempotency-Key"), actorOf(res));
    if (idem.existing) return answer(res, await d.store.require(idem.existing));
    const created = await d.store
      // The flow and its flow.created audit event in one statement.
      .create(
        {
          intent: body.intent,
          requestedParams: body.params ?? {},
          autoApprove: body.auto_approve && roleAtLeast(roleOf(res), "op"),
          autoApproveRole: roleOf(res) === "admin" ? "admin" : "op",
          autoExecute: body.auto_execute,
        },
        actorOf(res),
      )
      .catch(async (e: unknown) => (await idem.release().catch(() => undefined), Promise.reject(e)));
    await idem.record(created.flow_id);
    d.logger.info({ flowId: created.flow_id, actor: actorOf(res) }, "intent received");
    const { result } = await d.intents.submit(created.flow_id, "plan", waitMs(req), undefined, created);
    // Accepted: the flow and its job are written; the client follows status_endpoint (or its events).
    if (prefersAsync(req)) return answer(res, created, true);
    // The orchestrator's result carries the flow as it committed it: no second read.
    const row = result?.flow?.flow_id === created.flow_id ? result.flow : await d.store.require(created.flow_id);
    if (result?.paramErrors?.length && row.dag_id) {
      // Explicit params the chosen DAG rejects: a client error naming each field; the flow stays rejected, no run.
      return sendProblem(res, paramsInvalidError(row.dag_id, result.paramErrors), { flow_id: row.flow_id, field: result.paramErrors[0]?.field });
    }
    answer(res, row);
  });

  r.get("/orchestrator/flows/:flow_id", async (req, res) => {
    const row = await d.store.require(flowIdOf(req.params.flow_id));
    answer(res, await syncFlowWithRun(d.store, d.engine, row));
  });

  r.post("/orchestrator/flows/:flow_id/approve", async (req, res) => {
    const flowId = flowIdOf(req.params.flow_id);
    await approveFlow(d.store, flowId, actorOf(res), roleOf(res));
    await d.intents.submit(flowId, "approve", waitMs(req));
    answer(res, await d.store.require(flowId), prefersAsync(req));
  });

  r.post("/orchestrator/flows/:flow_id/answer", async (req, res) => {
    const flowId = flowIdOf(req.params.flow_id);
    const body = parseInput(AnswerRequestSchema, req.body ?? {}, "body");
    let answered;
    try {
      answered = await answerFlow({ store: d.store, engine: d.engine }, flowId, { actor: actorOf(res), role: roleOf(res) }, body);
    } catch (e) {
      // An answer that breaks a rule: 400 naming the field; the flow keeps waiting for a valid one.
      if (e instanceof ParamsInvalidError) return sendProblem(res, e, { flow_id: flowId, field: e.fields[0]?.field });
      throw e;
    }
    // A new plan job for each answer: the first plan job of the flow has already finished.
    await d.intents.submit(flowId, "plan", waitMs(req), `answer-${new Date(answered.updated_at).getTime()}`);
    answer(res, await d.store.require(flowId), prefersAsync(req));
  });

  r.post("/orchestrator/flows/:flow_id/cancel", async (req, res) => {
    const flowId = flowIdOf(req.params.flow_id);
    const body = parseInput(CancelRequestSchema, req.body ?? {}, "body");
    answer(res, await cancelFlow(d.store, flowId, { actor: actorOf(res), role: roleOf(res) }, body.reason));
  });

  return r;
}
