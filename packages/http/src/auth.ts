import { createHash, timingSafeEqual } from "node:crypto";
import type { RequestHandler, Response } from "express";
import { SvcError } from "@svc/errors";
import { sendProblem } from "./problem";

/**
 * Credentials an API accepts: HTTP basic with SVC_ADMIN_USER/SVC_ADMIN_PASSWORD, or a bearer
 * SVC_API_TOKEN. With none configured the API is open (development, bound to localhost).
 */
export interface AuthSettings {
  adminUser?: string;
  adminPassword?: string;
  apiToken?: string;
}

/** The actor recorded for requests to an open API (no credentials configured). */
export const ANONYMOUS = "anonymous";
/** The actor recorded for requests authenticated with the bearer token. */
export const TOKEN_PRINCIPAL = "token";

/** True when at least one way to authenticate is configured. */
export function authConfigured(a: AuthSettings): boolean {
  return Boolean((a.adminUser && a.adminPassword) || a.apiToken);
}

// Hash both sides first: equal-length inputs for timingSafeEqual, and no early exit on length.
const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();
/** Constant-time string equality. */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

/** Who the Authorization header authenticates (the admin user name, or `token` for the bearer token), or null. */
export function principalOf(header: string | undefined, a: AuthSettings): string | null {
  const m = header ? /^(\w+)\s+(.+)$/.exec(header.trim()) : null;
  if (!m) return null;
  const scheme = m[1]!.toLowerCase();
  if (scheme === "bearer") return a.apiToken && safeEqual(m[2]!, a.apiToken) ? TOKEN_PRINCIPAL : null;
  if (scheme !== "basic" || !a.adminUser || !a.adminPassword) return null;
  const decoded = Buffer.from(m[2]!, "base64").toString("utf8");
  const sep = decoded.indexOf(":");
  if (sep < 0) return null;
  // Both comparisons every time: no short-circuit on the user name.
  const userOk = safeEqual(decoded.slice(0, sep), a.adminUser);
  const passOk = safeEqual(decoded.slice(sep + 1), a.adminPassword);
  return userOk && passOk ? a.adminUser : null;
}

/** Whether an Authorization header value carries valid credentials. */
export function isAuthorized(header: string | undefined, a: AuthSettings): boolean {
  return principalOf(header, a) !== null;
}

/**
 * Middleware: HTTP basic or bearer token, else 401 problem with WWW-Authenticate. Records who
 * made the request in `res.locals.actor` (see actorOf); open, with actor `anonymous`, when
 * nothing is configured.
 */
export function requireAuth(a: AuthSettings): RequestHandler {
  if (!authConfigured(a)) {
    return (_req, res, next) => {
      res.locals.actor = ANONYMOUS;
      next();
    };
  }
  const challenges = [a.adminUser && a.adminPassword ? 'Basic realm="svc"' : null, a.apiToken ? 'Bearer realm="svc"' : null].filter(Boolean).join(", ");
  return (req, res, next) => {
    const who = principalOf(req.headers.authorization, a);
    if (who) {
      res.locals.actor = who;
      return next();
    }
    res.setHeader("WWW-Authenticate", challenges);
    sendProblem(res, new SvcError("unauthenticated", req.headers.authorization ? "Invalid credentials" : "Authentication required: use HTTP basic auth or a bearer token"));
  };
}

/** The actor requireAuth recorded for this request (`anonymous` when none was). */
export function actorOf(res: Response): string {
  const actor: unknown = res.locals.actor;
  return typeof actor === "string" && actor ? actor : ANONYMOUS;
}
