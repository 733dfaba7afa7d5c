import { Router, type RequestHandler } from "express";
import type { EngineApi } from "@svc/engine";
import { parseInput } from "@svc/http";
import { dagRoutes } from "./dags";
import { dagRunRoutes } from "./dag-runs";
import { dagSourceRoutes } from "./dag-sources";
import { importErrorRoutes } from "./import-errors";
import { monitoringRoutes } from "./monitoring";
import { toExpressPath, type RouteDef } from "./route";
import { taskInstanceRoutes } from "./task-instances";
import { taskLogRoutes } from "./task-logs";

/** Every operation of /api/v1, in registration order (static paths before parameterised ones). */
export const API_ROUTES: RouteDef[] = [...monitoringRoutes, ...dagRoutes, ...dagSourceRoutes, ...dagRunRoutes, ...taskInstanceRoutes, ...taskLogRoutes, ...importErrorRoutes];

/** An Express router for the route table: validate path, query and body, call the handler, answer JSON. */
export function apiRouter(api: EngineApi, auth: RequestHandler, routes: RouteDef[] = API_ROUTES): Router {
  const router = Router();
  for (const r of routes) {
    const handlers: RequestHandler[] = r.public ? [] : [auth];
    handlers.push(async (req, res) => {
      const params = r.params ? parseInput(r.params, req.params, "path") : {};
      const query = r.query ? parseInput(r.query, req.query ?? {}, "query") : {};
      const body = r.body ? parseInput(r.body, req.body ?? {}, "body") : undefined;
      const out = await r.handler({ params, query, body, api, req, res });
      if (!res.headersSent) res.status(r.status ?? 200).json(out);
    });
    router[r.method](toExpressPath(r.path), ...handlers);
  }
  return router;
}
