import type { RequestHandler } from "express";

/** Seconds a client is told to wait when a backing service is down. */
export const OUTAGE_RETRY_AFTER_S = 5;

const CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EPIPE", "57P01", "57P02", "57P03", "53300"]);
const MESSAGES =
  /enableOfflineQueue|Connection is closed|Command timed out|MaxRetriesPerRequest|timeout exceeded when trying to connect|Connection terminated|connection timeout|canceling statement due to statement timeout|Query read timeout/i;

/** Whether an error says Postgres or Redis is unreachable or timed out (answered 503, not 500). */
export function isOutage(e: unknown): boolean {
  for (let x: unknown = e, depth = 0; x && typeof x === "object" && depth < 4; depth++) {
    const o = x as { code?: unknown; message?: unknown; errors?: unknown[]; cause?: unknown; name?: unknown };
    if (typeof o.code === "string" && (CODES.has(o.code) || o.code.startsWith("08"))) return true;
    if (typeof o.message === "string" && MESSAGES.test(o.message)) return true;
    if (o.name === "MaxRetriesPerRequestError") return true;
    if (Array.isArray(o.errors) && o.errors.some(isOutage)) return true;
    x = o.cause;
  }
  return false;
}

/**
 * Middleware for writes that need a backing service (the queue) to take effect: it is asked
 * first (`check`, e.g. a Redis PING on a fail-fast connection), so with the service down the
 * request is answered 503 with Retry-After by errorHandler before anything is written.
 */
export const requireReachable =
  (check: () => Promise<unknown>): RequestHandler =>
  async (_req, _res, next) => {
    await check();
    next();
  };
