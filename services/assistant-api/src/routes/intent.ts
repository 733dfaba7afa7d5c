import { Router, type Response } from "express";
import { paramsInvalidError } from "@svc/dags";
import type { FlowRow } from "@svc/db";
import { approveFlow, cancelFlow, FLOW_ID_PATTERN, isSettledStatus, syncFlowWithRun, toFlowView } from "@svc/flows";
import { NotFoundError } from "@svc/errors";
import { actorOf, parseInput, sendProblem } from "@svc/http";
import type { AssistantDeps } from "../deps";
import { CancelRequestSchema, IntentRequestSchema } from "../schemas";

/** 200 once the flow has settled or its run was created; 202 while the orchestrator still works on it. */
const statusFor = (row: FlowRow) => (isSettledStatus(row.status) || row.status === "in_progress" ? 200 : 202);

/** A path flow id, or a 404 (a malformed id names no flow). */
export function flowIdOf(raw: unknown): string {
  const id = String(raw ?? "");
  if (!FLOW_ID_PATTERN.test(id)) throw new NotFoundError("flow_not_found", `Flow '${id.slice(0, 80)}' not found`);
  return id;
}

/** POST /orchestrator/intent, GET /orchestrator/flows/:id, approve and cancel. */
export function intentRoutes(d: AssistantDeps): Router {
  const r = Router();
  const ui = d.config.workflowUiUrl;
  const answer = (res: Response, row: FlowRow) => res.status(statusFor(row)).json(toFlowView(row, ui));

  r.post("/orchestrator/intent", async (req, res) => {
    const body = parseInput(IntentRequestSchema, req.body, "body");
    const created = await d.store.create({ intent: body.intent, requestedParams: body.params ?? {}, autoApprove: body.auto_approve, autoExecute: body.auto_execute });
    d.logger.info({ flowId: created.flow_id, actor: actorOf(res) }, "intent received");
    await d.store.audit(actorOf(res), "flow.created", created.flow_id);
    const { result } = await d.intents.submit(created.flow_id, "plan", d.intentWaitMs);
    const row = await d.store.require(created.flow_id);
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
    await approveFlow(d.store, flowId, actorOf(res));
    await d.intents.submit(flowId, "approve", d.intentWaitMs);
    answer(res, await d.store.require(flowId));
  });

  r.post("/orchestrator/flows/:flow_id/cancel", async (req, res) => {
    const flowId = flowIdOf(req.params.flow_id);
    const body = parseInput(CancelRequestSchema, req.body ?? {}, "body");
    answer(res, await cancelFlow(d.store, flowId, actorOf(res), body.reason));
  });

  return r;
}
