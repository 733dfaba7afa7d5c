import { createHash } from "node:crypto";
import express, { type Express, type RequestHandler } from "express";
import type { EngineApi } from "@svc/engine";
import type { HostService } from "@svc/hosts";
import { silentLogger, type Logger } from "@svc/logger";
import { BadRequestError } from "@svc/errors";
import { allowedHostsFor, csrfGuard, errorHandler, hostGuard, notFoundHandler, requireAuth, requireReachable, securityHeaders, type AuthSettings } from "@svc/http";
import { buildOpenApi } from "./openapi";
import { API_ROUTES, apiRouter } from "./routes";
import { hostsRouter } from "./routes/hosts";
import { toExpressPath } from "./routes/route";
import { assertRolesDeclared, routeRole, webUiRole } from "./route-roles";
import { uiRouter, type UiOptions } from "./ui/router";

export interface WebUiDeps {
  api: EngineApi;
  /** Credentials; none configured means open (main.ts then binds to 127.0.0.1 only). */
  auth: AuthSettings;
  logger?: Logger;
  /** The ask box's assistant API base URL and the grid's live-update timing. */
  ui?: Omit<UiOptions, "logger">;
  /** The scheduler queue's connection, asked before a trigger (fail-fast; none: not asked). */
  queue?: { ping(): Promise<unknown> };
  /** Peers trusted to set X-Forwarded-For (SVC_TRUST_PROXY; default loopback, where nginx runs). */
  trustProxy?: string;
  /** Host names answered to (SVC_ALLOWED_HOSTS; unset: any); an open app answers only to loopback names. */
  allowedHosts?: readonly string[];
  /** The host inventory (/api/v1/hosts); absent: those routes answer 503. */
  hosts?: HostService;
}

/** The web UI and the Airflow-compatible REST API under /api/v1, as an Express app (no listen). */
export function createWebUiApp(deps: WebUiDeps): Express {
  const logger = deps.logger ?? silentLogger();
  const auth = requireAuth(deps.auth, { roles: webUiRole });
  const openapi = buildOpenApi(API_ROUTES);
  const app = express();
  app.disable("x-powered-by");
  app.set("query parser", "simple");
  // Behind nginx: the client's own address counts failed logins, not the proxy's (one client must not lock out all).
  app.set("trust proxy", deps.trustProxy ?? "loopback");
  app.use(securityHeaders(), hostGuard(allowedHostsFor(deps.auth, deps.allowedHosts)), csrfGuard());

  const v1 = express.Router();
  v1.use(express.json({ limit: "1mb" }));
  // The document describes the API itself (no data): served without credentials, like /health.
  v1.get("/openapi.json", (_req, res) => void res.json(openapi));
  // A new run needs the queue to start: with Redis down the trigger is refused (503) before a run is
  // made (a retry with its Idempotency-Key still gets a run made earlier).
  const queueUp = deps.queue ? [requireReachable(() => deps.queue!.ping())] : [];
  v1.post("/dags/:dag_id/dagRuns", auth, idempotencyKey(deps.api), ...queueUp);
  v1.use(apiRouter(deps.api, auth));
  v1.use(hostsRouter(deps.hosts, auth));
  v1.use(notFoundHandler);
  app.use("/api/v1", v1);
  app.use(uiRouter(deps.api, auth, { ...deps.ui, logger }));
  app.use(errorHandler(logger));
  // Each route's role is declared (route-roles.ts): a route without one stops the app here.
  assertRolesDeclared(app);
  const publicMismatch = API_ROUTES.filter((r) => (routeRole(r.method, `/api/v1${toExpressPath(r.path)}`) === "public") !== Boolean(r.public));
  if (publicMismatch.length) throw new Error(`route-roles.ts and the route table disagree on public routes: ${publicMismatch.map((r) => r.operationId).join(", ")}`);
  return app;
}

/**
 * `Idempotency-Key` on a trigger: the key (per DAG) names the run, so a client's retry after a
 * timeout or an outage gets the run the first try made instead of a second one.
 */
function idempotencyKey(api: EngineApi): RequestHandler {
  return async (req, res, next) => {
    const key = req.get("Idempotency-Key");
    if (key === undefined) return next();
    if (!/^[\x21-\x7e]{1,200}$/.test(key)) throw new BadRequestError("Idempotency-Key: 1 to 200 visible ASCII characters", { field: "Idempotency-Key" });
    const dagId = String(req.params.dag_id);
    const runId = `manual__key-${createHash("sha256").update(`${dagId}\0${key}`).digest("hex").slice(0, 32)}`;
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (body.dag_run_id !== undefined && body.dag_run_id !== runId)
      throw new BadRequestError("dag_run_id: leave it out with an Idempotency-Key (the key names the run)", { field: "dag_run_id" });
    const existing = await api.getDagRun(dagId, runId).catch((e: { code?: string }) => {
      if (e.code === "dag_run_not_found") return undefined;
      throw e;
    });
    if (existing) return void res.status(200).json(existing);
    req.body = { ...body, dag_run_id: runId };
    next();
  };
}
