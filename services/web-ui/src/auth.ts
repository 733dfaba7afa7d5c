import { createHash, timingSafeEqual } from "node:crypto";
import type { RequestHandler } from "express";
import { SvcError } from "@svc/errors";
import { sendProblem } from "./problem";

/** Credentials the API accepts; with none configured the API is open (development, bound to localhost). */
export interface AuthSettings {
  adminUser?: string;
  adminPassword?: string;
  apiToken?: string;
}

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

function checkBasic(value: string, a: AuthSettings): boolean {
  if (!a.adminUser || !a.adminPassword) return false;
  const decoded = Buffer.from(value, "base64").toString("utf8");
  const sep = decoded.indexOf(":");
  if (sep < 0) return false;
  // Evaluate both comparisons every time (no short-circuit on the user name).
  const userOk = safeEqual(decoded.slice(0, sep), a.adminUser);
  const passOk = safeEqual(decoded.slice(sep + 1), a.adminPassword);
  return userOk && passOk;
}

/** Whether an Authorization header value carries valid credentials. */
export function isAuthorized(header: string | undefined, a: AuthSettings): boolean {
  if (!header) return false;
  const m = /^(\w+)\s+(.+)$/.exec(header.trim());
  if (!m) return false;
  const scheme = m[1]!.toLowerCase();
  if (scheme === "basic") return checkBasic(m[2]!, a);
  if (scheme === "bearer") return Boolean(a.apiToken) && safeEqual(m[2]!, a.apiToken!);
  return false;
}

/** Express middleware: HTTP basic or bearer token; 401 with WWW-Authenticate otherwise. Open when nothing is configured. */
export function requireAuth(a: AuthSettings): RequestHandler {
  if (!authConfigured(a)) return (_req, _res, next) => next();
  const challenges = [a.adminUser && a.adminPassword ? 'Basic realm="svc"' : null, a.apiToken ? 'Bearer realm="svc"' : null].filter(Boolean).join(", ");
  return (req, res, next) => {
    if (isAuthorized(req.headers.authorization, a)) return next();
    res.setHeader("WWW-Authenticate", challenges);
    sendProblem(res, new SvcError("unauthenticated", req.headers.authorization ? "Invalid credentials" : "Authentication required: use HTTP basic auth or a bearer token"));
  };
}
