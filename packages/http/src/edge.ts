import type { RequestHandler } from "express";
import { SvcError } from "@svc/errors";
import { authConfigured, type AuthSettings } from "./auth";
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

/** The names an open API (no credentials) answers to: loopback only, which no DNS answer can name. */
export const LOOPBACK_HOSTS: readonly string[] = ["127.0.0.1", "localhost", "::1"];

/**
 * The Host allow-list of an API: loopback names only when it is open (a page on another site
 * that rebinds its own name to 127.0.0.1 would otherwise act as admin), else the loopback names
 * and `configured` (SVC_ALLOWED_HOSTS; unset: any Host, since every request needs credentials).
 * A loopback name is safe in any mode: only a page served from loopback itself can send it.
 */
export function allowedHostsFor(auth: AuthSettings, configured?: readonly string[]): readonly string[] | undefined {
  if (!authConfigured(auth)) return LOOPBACK_HOSTS;
  return configured === undefined ? undefined : [...LOOPBACK_HOSTS, ...configured];
}

/**
 * DNS rebinding guard: a request whose Host header names none of `allowed` (host names or
 * addresses, any port; case-insensitive) is refused with 403, reads included. Undefined: any Host.
 */
export function hostGuard(allowed: readonly string[] | undefined): RequestHandler {
  if (allowed === undefined) return (_req, _res, next) => next();
  const names = new Set(allowed.map((h) => h.toLowerCase().replace(/^\[(.*)\]$/, "$1")));
  return (req, res, next) => {
    const host = hostnameOf(req.headers.host);
    if (host !== undefined && names.has(host)) return next();
    sendProblem(
      res,
      new SvcError("forbidden", `This server does not answer to the Host '${String(req.headers.host ?? "")}' (allowed: ${[...names].join(", ")}; SVC_ALLOWED_HOSTS)`),
    );
  };
}

/** The name of a Host header without its port ("[::1]:8888" → "::1"), lower-cased; undefined when malformed. */
function hostnameOf(host: string | undefined): string | undefined {
  if (!host) return undefined;
  const m = /^(?:\[([0-9a-f:.]+)\]|([^:[\]]+))(?::\d{1,5})?$/i.exec(host.trim());
  return m ? (m[1] ?? m[2])!.toLowerCase() : undefined;
}

/**
 * Cross-site request forgery guard for state-changing methods (403 otherwise):
 * - a request that names its Origin must come from this server's own origin, and one whose
 *   Sec-Fetch-Site says another site sent it is refused;
 * - a body must be JSON (a form cannot send that without CORS);
 * - a POST with neither a JSON Content-Type nor Origin nor Sec-Fetch-Site is refused: a
 *   browser page of this server sends Origin, and a script or CLI (curl, SDKs) sends JSON, even
 *   with no body (`Content-Type: application/json`). Other methods (PATCH, PUT, DELETE) need no
 *   such sign: a browser sends them cross-site only after a CORS preflight, which these servers
 *   never grant, so an Airflow client's DELETE without a Content-Type still works.
 */
export function csrfGuard(): RequestHandler {
  return (req, res, next) => {
    if (SAFE.has(req.method)) return next();
    const origin = req.headers.origin;
    if (origin !== undefined && !sameOrigin(origin, req.headers.host)) {
      return sendProblem(res, new SvcError("forbidden", "Cross-origin request refused: the Origin header does not match this server"));
    }
    const site = req.headers["sec-fetch-site"];
    if (site === "cross-site" || site === "same-site") {
      return sendProblem(res, new SvcError("forbidden", `Cross-site request refused (Sec-Fetch-Site: ${site})`));
    }
    const hasBody = Number(req.headers["content-length"] ?? 0) > 0 || req.headers["transfer-encoding"] !== undefined;
    const type = String(req.headers["content-type"] ?? "")
      .split(";")[0]!
      .trim()
      .toLowerCase();
    const json = type === "application/json" || /^application\/[a-z0-9.+-]*\+json$/.test(type);
    if ((hasBody || type !== "") && !json) {
      return sendProblem(res, new SvcError("forbidden", "State-changing requests must send a JSON body (Content-Type: application/json)"));
    }
    if (req.method === "POST" && !json && origin === undefined && site === undefined) {
      return sendProblem(res, new SvcError("forbidden", "A POST must send Content-Type: application/json (an empty body is fine), or come from this server's own pages"));
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
