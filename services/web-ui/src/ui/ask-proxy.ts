import express, { Router, type Request, type RequestHandler, type Response } from "express";
import { z } from "zod";
import { UnavailableError } from "@svc/errors";
import { parseInput } from "@svc/http";
import type { Logger } from "@svc/logger";

const askBody = z.strictObject({ intent: z.string().trim().min(1).max(2000) });
const answerBody = z.strictObject({ params: z.record(z.string().min(1).max(100), z.string().trim().min(1).max(500)) });
const flowParams = z.object({ flow_id: z.string().regex(/^flow-[0-9a-f]{12}$/, "not a flow id") });

/** Longest wait for the assistant (it answers within its own intent wait, then 202 while planning). */
const ASSISTANT_TIMEOUT_MS = 30_000;

/**
 * The ask box's same-origin path to the assistant API (`assistantUrl`, from configuration): POST a
 * sentence, read a flow, answer its questions, approve it. The caller's Authorization header is passed on unchanged, so the
 * assistant checks the same credentials; bodies and statuses come back as the assistant sent them.
 */
export function askRouter(assistantUrl: string | undefined, auth: RequestHandler, logger: Logger): Router {
  const r = Router();
  const forward = async (req: Request, res: Response, method: "GET" | "POST", path: string, body?: unknown) => {
    if (!assistantUrl) throw new UnavailableError("the assistant is not configured for this web UI");
    let answer: globalThis.Response;
    try {
      answer = await fetch(`${assistantUrl.replace(/\/+$/, "")}${path}`, {
        method,
        headers: {
          Accept: "application/json",
          ...(body ? { "Content-Type": "application/json" } : {}),
          ...(req.headers.authorization ? { Authorization: req.headers.authorization } : {}),
        },
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(ASSISTANT_TIMEOUT_MS),
      });
    } catch (e) {
      logger.warn({ err: String(e) }, "assistant unreachable");
      throw new UnavailableError("the assistant is not reachable; try again shortly");
    }
    res
      .status(answer.status)
      .type(answer.headers.get("content-type") ?? "application/json")
      .send(await answer.text());
  };
  r.post("/ui/ask", auth, express.json({ limit: "16kb" }), async (req, res) => {
    const { intent } = parseInput(askBody, req.body, "body");
    await forward(req, res, "POST", "/orchestrator/intent", { intent });
  });
  r.get("/ui/ask/flows/:flow_id", auth, async (req, res) => {
    const { flow_id } = parseInput(flowParams, req.params, "path");
    await forward(req, res, "GET", `/orchestrator/flows/${flow_id}`);
  });
  r.post("/ui/ask/flows/:flow_id/answer", auth, express.json({ limit: "16kb" }), async (req, res) => {
    const { flow_id } = parseInput(flowParams, req.params, "path");
    const body = parseInput(answerBody, req.body, "body");
    await forward(req, res, "POST", `/orchestrator/flows/${flow_id}/answer`, body);
  });
  r.post("/ui/ask/flows/:flow_id/approve", auth, async (req, res) => {
    const { flow_id } = parseInput(flowParams, req.params, "path");
    await forward(req, res, "POST", `/orchestrator/flows/${flow_id}/approve`, {});
  });
  return r;
}
