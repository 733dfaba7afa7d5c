import express, { type Express } from "express";
import type { EngineApi } from "@svc/engine";
import { silentLogger, type Logger } from "@svc/logger";
import { errorHandler, notFoundHandler, requireAuth, type AuthSettings } from "@svc/http";
import { buildOpenApi } from "./openapi";
import { API_ROUTES, apiRouter } from "./routes";
import { uiRouter } from "./ui/router";

export interface WebUiDeps {
  api: EngineApi;
  /** Credentials; none configured means open (main.ts then binds to 127.0.0.1 only). */
  auth: AuthSettings;
  logger?: Logger;
}

/** The web UI and the Airflow-compatible REST API under /api/v1, as an Express app (no listen). */
export function createWebUiApp(deps: WebUiDeps): Express {
  const logger = deps.logger ?? silentLogger();
  const auth = requireAuth(deps.auth);
  const openapi = buildOpenApi(API_ROUTES);
  const app = express();
  app.disable("x-powered-by");
  app.set("query parser", "simple");

  const v1 = express.Router();
  v1.use(express.json({ limit: "1mb" }));
  // The document describes the API itself (no data): served without credentials, like /health.
  v1.get("/openapi.json", (_req, res) => void res.json(openapi));
  v1.use(apiRouter(deps.api, auth));
  v1.use(notFoundHandler);
  app.use("/api/v1", v1);
  app.use(uiRouter(deps.api, auth));
  app.use(errorHandler(logger));
  return app;
}
