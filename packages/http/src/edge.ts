import type { RequestHandler } from "express";
import { SvcError } from "@svc/errors";
import { sendProblem } from "./problem";

/** Headers every answer carries (both ports). */
export function securityHeaders(): RequestHandler {
  return (_req, res, next) => {
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("X-Frame-Options", "DENY");
    res.setHeader("Referrer-Policy", "no-referrer");
    res.setHeader("Cross-Origin-Opener-Policy", "same-origin");
    res.setHeader("Cross-Origin-Resource-Policy", "same-origin");
    res.setHeader("Content-Security-Policy", "frame-ancestors 'none'; base-uri 'none'; form-action 'self'");
    next();
  };
}

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Cross-site request forgery guard: a state-changing request with a body must be JSON (a form
 * cannot send that without CORS), and a request that names its Origin must come from this
 * server's own origin. Otherwise 403.
 */
export function csrfGuard(): RequestHandler {
  return (req, res, next) => {
    if (SAFE.has(req.method)) return next();
    const origin = req.headers.origin;
    if (origin !== undefined && !sameOrigin(origin, req.headers.host)) {
      return sendProblem(res, new SvcError("forbidden", "Cross-origin request refused: the Origin header does not match this server"));
    }
    const hasBody = Number(req.headers["content-length"] ?? 0) > 0 || req.headers["transfer-encoding"] !== undefined;
    const type = String(req.headers["content-type"] ?? "")
      .split(";")[0]!
      .trim()
      .toLowerCase();
    if ((hasBody || type !== "") && !(type === "application/json" || /^application\/[a-z0-9.+-]*\+json$/.test(type))) {
      return sendProblem(res, new SvcError("forbidden", "State-changing requests must send a JSON body (Content-Type: application/json)"));
    }
    next();
  };
}

function sameOrigin(origin: string, host: string | undefined): boolean {
  if (!host) return false;
  try {
    return new URL(origin).host.toLowerCase() === host.toLowerCase();
  } catch {
    return false;
  }
}
