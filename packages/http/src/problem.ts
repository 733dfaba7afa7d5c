import type { ServerResponse } from "node:http";
import type { ErrorRequestHandler, RequestHandler } from "express";
import { BadRequestError, NotFoundError, SvcError, toProblem } from "@svc/errors";
import type { Logger } from "@svc/logger";
import { isOutage, OUTAGE_RETRY_AFTER_S } from "./outage";

/**
 * Answer with an RFC 7807 problem (application/problem+json); `extra` adds or overrides members.
 * The one place problem JSON is written: express apps and plain node servers (the MCP transport) alike.
 */
export function sendProblem(res: ServerResponse, e: unknown, extra: Record<string, unknown> = {}): void {
  const p = { ...toProblem(e), ...extra };
  const body = JSON.stringify(p);
  res.statusCode = p.status;
  res.setHeader("Content-Type", "application/problem+json; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(body));
  res.end(body);
}

/** 404 problem for unknown paths. */
export const notFoundHandler: RequestHandler = (req, res) => {
  sendProblem(res, new NotFoundError("not_found", `No such endpoint: ${req.method} ${req.path}`));
};

/** Last error handler: typed errors map to their status; anything else is a logged 500 without details. */
export function errorHandler(logger: Pick<Logger, "error">): ErrorRequestHandler {
  return (err, req, res, next) => {
    if (res.headersSent) return next(err);
    let e: unknown = err;
    const status = (err as { status?: number }).status;
    // body-parser failures carry a status: malformed JSON, too large, wrong charset.
    if (!(err instanceof SvcError) && typeof status === "number" && status >= 400 && status < 500) {
      const type = (err as { type?: string }).type;
      e = new BadRequestError(type === "entity.parse.failed" ? "body: request body is not valid JSON" : `body: ${(err as Error).message}`, { field: "body" });
      if (status === 413) return sendProblem(res, e, { status: 413, title: "Payload Too Large" });
    }
    if (!(e instanceof SvcError) && isOutage(err)) {
      // Postgres or Redis down: a retryable 503, never a hang or an opaque 500.
      logger.error({ err: { message: (err as Error).message, code: (err as { code?: unknown }).code }, method: req.method, path: req.path }, "backing service unavailable");
      res.setHeader("Retry-After", String(OUTAGE_RETRY_AFTER_S));
      return sendProblem(res, new SvcError("unavailable", "A backing service (database or queue) is unavailable; retry shortly"));
    }
    if (!(e instanceof SvcError)) {
      logger.error({ err: err instanceof Error ? { message: err.message, stack: err.stack } : String(err), method: req.method, path: req.path }, "request failed");
    }
    sendProblem(res, e);
  };
}
