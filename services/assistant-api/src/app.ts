import express, { type Express } from "express";
import { allowedHostsFor, csrfGuard, errorHandler, hostGuard, notFoundHandler, parseInput, requireAuth, securityHeaders } from "@svc/http";
import { assistantAuth } from "./api-auth";
import type { AssistantDeps } from "./deps";
import { renderDocsPage } from "./docs-page";
import { checkHealth } from "./health";
import { createMetrics } from "./metrics";
import { buildOpenApi } from "./openapi";
import { assistantRole } from "./route-roles";
import { flowEventRoutes } from "./routes/flow-events";
import { intentRoutes } from "./routes/intent";
import { orchestratorRoutes } from "./routes/orchestrator";
import { ChatRequestSchema } from "./schemas";

/** The assistant API as an express app (no listening: main.ts and tests decide where). */
export function createAssistantApp(d: AssistantDeps): Express {
  const app = express();
  app.disable("x-powered-by");
  // Behind nginx: the client's own address (X-Forwarded-For) for the failed-login lockout and logs.
  app.set("trust proxy", d.config.http.trustProxy);
  const metrics = createMetrics();
  app.use(metrics.middleware);
  app.use(securityHeaders(), hostGuard(allowedHostsFor(d.config.auth, d.config.allowedHosts)), csrfGuard());
  app.use(express.json({ limit: "256kb" }));

  // Open: liveness probes and the API description carry no data.
  app.get("/health", async (_req, res) => {
    const h = await checkHealth({ db: d.db, redis: d.redis, engine: d.engine, config: d.config, version: d.version });
    res.status(h.status === "unhealthy" ? 503 : 200).json(h);
  });
  const openapi = buildOpenApi(d.version);
  app.get("/openapi.json", (_req, res) => void res.json(openapi));
  const page = renderDocsPage(openapi as Parameters<typeof renderDocsPage>[0]);
  app.get("/docs", (_req, res) => void res.type("html").send(page));

  app.use(requireAuth(assistantAuth(d.config), { roles: assistantRole }));
  app.use(intentRoutes(d));
  app.use(flowEventRoutes(d));
  app.use(orchestratorRoutes(d));
  app.post("/chat", async (req, res) => {
    const body = parseInput(ChatRequestSchema, req.body, "body");
    res.json(await d.chat.answer(body.message));
  });
  app.get("/metrics", async (_req, res) => {
    res.type("text/plain; version=0.0.4").send(metrics.render(await d.store.countByStatus()));
  });

  app.use(notFoundHandler);
  app.use(errorHandler(d.logger));
  return app;
}

export { assistantRole } from "./route-roles";
