import { createHash, timingSafeEqual } from "node:crypto";
import type { Request, RequestHandler, Response } from "express";
import { RateLimitedError, SvcError } from "@svc/errors";
import { LoginLimiter } from "./login-limiter";
import { namedTokenPrincipal, type NamedToken } from "./named-tokens";
import { verifyPassword } from "./passwords";
import { PasswordChecksBusyError, processPasswordGate, type PasswordGate } from "./password-gate";
import { VerifiedCredentials } from "./verified-credentials";
import { sendProblem } from "./problem";
import { defaultRolePolicy, roleAtLeast, type Role, type RolePolicy } from "./roles";

/** A user of SVC_USERS (or the users table): a name, a role and a scrypt hash (passwords.ts). */
export interface UserCredential {
  name: string;
  role: Role;
  passwordHash: string;
}

/**
 * Credentials an API accepts: HTTP basic with SVC_ADMIN_USER/SVC_ADMIN_PASSWORD (role admin) or a
 * user of `users`, or a bearer SVC_API_TOKEN (role `apiTokenRole`, default admin). With none
 * configured the API is open (development, bound to localhost).
 */
export interface AuthSettings {
  adminUser?: string;
  adminPassword?: string;
  apiToken?: string;
  apiTokenRole?: Role;
  users?: readonly UserCredential[];
  /** Further bearer tokens, each with its own name and role (a tool server's credential). */
  tokens?: readonly NamedToken[];
}

/** Who a request is: a name and a role. */
export interface Principal {
  name: string;
  role: Role;
}

/** The actor recorded for requests to an open API (no credentials configured). */
export const ANONYMOUS = "anonymous";
/** The actor recorded for requests authenticated with the bearer token. */
export const TOKEN_PRINCIPAL = "token";

/** True when at least one way to authenticate is configured. */
export function authConfigured(a: AuthSettings): boolean {
  return Boolean((a.adminUser && a.adminPassword) || a.apiToken || a.users?.length || a.tokens?.length);
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
 * Who the Authorization header authenticates, with the role; null when nobody. With `verified`,
 * a user's header that passed the password hash recently is not hashed again (see VerifiedCredentials).
 * The hash check waits for a slot of `gate` (default: the process's); with none free and the wait
 * list full it rejects with PasswordChecksBusyError.
 */
export async function authenticate(
  header: string | undefined,
  a: AuthSettings,
  verified?: VerifiedCredentials,
  gate: PasswordGate = processPasswordGate,
): Promise<Principal | null> {
  const named = namedTokenPrincipal(header, a.tokens);
  if (named) return named;
  const who = principalOf(header, a);
  if (who === TOKEN_PRINCIPAL) return { name: who, role: a.apiTokenRole ?? "admin" };
  if (who) return { name: who, role: "admin" };
  const m = header ? /^basic\s+(.+)$/i.exec(header.trim()) : null;
  if (!m || !a.users?.length) return null;
  const users = a.users;
  const known = verified?.lookup(header!, (name) => users.find((u) => u.name === name)?.passwordHash);
  const cached = known === undefined ? undefined : users.find((u) => u.name === known);
  if (cached) return { name: cached.name, role: cached.role };
  const decoded = Buffer.from(m[1]!, "base64").toString("utf8");
  const sep = decoded.indexOf(":");
  if (sep < 0) return null;
  const user = users.find((u) => safeEqual(u.name, decoded.slice(0, sep)));
  // A hash is checked even for an unknown name, so timing does not tell which names exist.
  const ok = await gate.run(() => verifyPassword(decoded.slice(sep + 1), user?.passwordHash ?? UNKNOWN_USER_HASH));
  if (!ok || !user) return null;
  verified?.remember(header!, user.name, user.passwordHash);
  return { name: user.name, role: user.role };
}
const UNKNOWN_USER_HASH = "scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";

/** Options of requireAuth. */
export interface RequireAuthOptions {
  /** The lowest role each request needs (default: viewer for reads, user otherwise). */
  roles?: RolePolicy;
  /** Failed-login lockout per client and per account (default: one per middleware, 10 failures in 5 min → 5 min of 429). */
  limiter?: LoginLimiter;
  /** Users' headers verified recently (default: one per middleware, 5 minutes). */
  verified?: VerifiedCredentials;
  /** The bound on password hash checks (default: the process's; a full gate answers 503 with Retry-After). */
  passwordGate?: PasswordGate;
}

/**
 * Middleware: HTTP basic or bearer token, else 401 problem with WWW-Authenticate; a role too low
 * for the request (opts.roles) is 403; a client, or an account, with too many failed logins gets
 * 429 with Retry-After (LoginLimiter). Records who made the request in `res.locals.actor` and `res.locals.role`; open,
 * with actor `anonymous` and role admin, when nothing is configured.
 */
export function requireAuth(a: AuthSettings, opts: RequireAuthOptions = {}): RequestHandler {
  if (!authConfigured(a)) {
    return (_req, res, next) => {
      res.locals.actor = ANONYMOUS;
      res.locals.role = "admin";
      next();
    };
  }
  const policy = opts.roles ?? defaultRolePolicy;
  const limiter = opts.limiter ?? new LoginLimiter();
  const verified = opts.verified ?? new VerifiedCredentials();
  const challenges = [(a.adminUser && a.adminPassword) || a.users?.length ? 'Basic realm="svc"' : null, a.apiToken || a.tokens?.length ? 'Bearer realm="svc"' : null]
    .filter(Boolean)
    .join(", ");
  return (req, res, next) => {
    const attempt = { client: clientOf(req), account: accountOf(req.headers.authorization, a) };
    const wait = limiter.retryAfter(attempt);
    if (wait > 0) {
      // Hammering a locked account counts against the client too (its own lockout then follows).
      if (limiter.retryAfter({ client: attempt.client }) === 0) limiter.fail({ client: attempt.client });
      res.setHeader("Retry-After", String(wait));
      return sendProblem(res, new RateLimitedError("Too many failed logins from this client or for this account; try again later"));
    }
    authenticate(req.headers.authorization, a, verified, opts.passwordGate).then(
      (who) => {
        if (!who) {
          if (req.headers.authorization) limiter.fail(attempt);
          res.setHeader("WWW-Authenticate", challenges);
          return sendProblem(
            res,
            new SvcError("unauthenticated", req.headers.authorization ? "Invalid credentials" : "Authentication required: use HTTP basic auth or a bearer token"),
          );
        }
        limiter.succeed(attempt);
        res.locals.actor = who.name;
        res.locals.role = who.role;
        const need = policy(req);
        if (!roleAtLeast(who.role, need)) return sendProblem(res, new SvcError("forbidden", `This needs the role '${need}' or above; '${who.name}' has '${who.role}'`));
        next();
      },
      (e: unknown) => {
        if (!(e instanceof PasswordChecksBusyError)) return next(e);
        // Not a failed login (nothing was checked): a quick refusal instead of a growing queue.
        res.setHeader("Retry-After", "1");
        sendProblem(res, e);
      },
    );
  };
}

/**
 * The account a basic-auth header names, when it is one of `a`'s (the admin user or a user); an
 * invented name has none, nor has a bearer token: those guesses count per client only.
 */
function accountOf(header: string | undefined, a: AuthSettings): string | undefined {
  const m = header ? /^basic\s+(.+)$/i.exec(header.trim()) : null;
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, "base64").toString("utf8");
  const sep = decoded.indexOf(":");
  const name = sep < 0 ? undefined : decoded.slice(0, sep);
  const known = name !== undefined && ((a.adminUser !== undefined && name === a.adminUser) || a.users?.some((u) => u.name === name) === true);
  return known ? name : undefined;
}

function clientOf(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? "unknown";
}

/** The role requireAuth recorded for this request (admin when the API is open). */
export function roleOf(res: Response): Role {
  const role: unknown = res.locals.role;
  return role === "viewer" || role === "user" || role === "op" || role === "admin" ? role : "viewer";
}

/** The actor requireAuth recorded for this request (`anonymous` when none was). */
export function actorOf(res: Response): string {
  const actor: unknown = res.locals.actor;
  return typeof actor === "string" && actor ? actor : ANONYMOUS;
}
