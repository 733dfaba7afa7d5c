import { createHash, timingSafeEqual } from "node:crypto";
import type { RequestHandler } from "express";
import type { SvcConfig } from "@svc/config";
import { SvcError } from "@svc/errors";
import { sendProblem } from "./problem";

// The scheme of the engine REST API (services/web-ui/src/auth.ts): HTTP basic with
// SVC_ADMIN_USER/SVC_ADMIN_PASSWORD, or a bearer SVC_API_TOKEN. Copied until it moves to a shared package.

/** Credentials the API accepts; with none configured it is open (development, bound to localhost). */
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
const safeEqual = (a: string, b: string): boolean => timingSafeEqual(digest(a), digest(b));

/** Who the Authorization header authenticates (`token` for the bearer token), or null. */
export function principalOf(header: string | undefined, a: AuthSettings): string | null {
  const m = header ? /^(\w+)\s+(.+)$/.exec(header.trim()) : null;
  if (!m) return null;
  const scheme = m[1]!.toLowerCase();
  if (scheme === "bearer") return a.apiToken && safeEqual(m[2]!, a.apiToken) ? "token" : null;
  if (scheme !== "basic" || !a.adminUser || !a.adminPassword) return null;
  const decoded = Buffer.from(m[2]!, "base64").toString("utf8");
  const sep = decoded.indexOf(":");
  if (sep < 0) return null;
  // Both comparisons every time: no short-circuit on the user name.
  const userOk = safeEqual(decoded.slice(0, sep), a.adminUser);
  const passOk = safeEqual(decoded.slice(sep + 1), a.adminPassword);
  return userOk && passOk ? a.adminUser : null;
}

/** Middleware: basic or bearer, else 401 with WWW-Authenticate. Open (actor `anonymous`) when nothing is configured. */
export function requireAuth(a: AuthSettings): RequestHandler {
  if (!authConfigured(a)) {
    return (_req, res, next) => {
      res.locals.actor = "anonymous";
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

/**
 * Where to listen. Without credentials: development binds 127.0.0.1 only (open API, local use);
 * production refuses to start. With credentials: SVC_BIND_HOST, default all interfaces.
 */
export function resolveListenHost(config: Pick<SvcConfig, "auth" | "deploymentMode" | "http">): { host: string; open: boolean } {
  if (authConfigured(config.auth)) return { host: config.http.bindHost ?? "0.0.0.0", open: false };
  if (config.deploymentMode === "production") {
    throw new Error("refusing to start in production without credentials: set SVC_ADMIN_USER and SVC_ADMIN_PASSWORD, or SVC_API_TOKEN");
  }
  return { host: "127.0.0.1", open: true };
}
