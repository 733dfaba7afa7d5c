import type { Request } from "express";
import { ROLES, type Role } from "@svc/http";

/**
 * The lowest role each route needs, declared once per route ("METHOD /full/path", express syntax),
 * never guessed from the method or the path. A route missing here stops the app at start-up
 * (assertRolesDeclared); `public` routes are served without credentials.
 */
export const ROUTE_ROLES: Readonly<Record<string, Role | "public">> = {
  "GET /": "public",
  "GET /api/v1/openapi.json": "public",
  "GET /api/v1/health": "public",
  "GET /api/v1/version": "public",
  // Reads, and the list query sent as a POST body: viewer.
  "GET /api/v1/dags": "viewer",
  "GET /api/v1/dags/:dag_id": "viewer",
  "GET /api/v1/dags/:dag_id/details": "viewer",
  "GET /api/v1/dags/:dag_id/tasks": "viewer",
  "GET /api/v1/dagSources/:file_token": "viewer",
  "GET /api/v1/dags/:dag_id/dagRuns": "viewer",
  "POST /api/v1/dags/~/dagRuns/list": "viewer",
  "GET /api/v1/dags/:dag_id/dagRuns/:dag_run_id": "viewer",
  "GET /api/v1/dags/:dag_id/dagRuns/:dag_run_id/taskInstances": "viewer",
  "GET /api/v1/dags/:dag_id/dagRuns/:dag_run_id/taskInstances/:task_id": "viewer",
  "GET /api/v1/dags/:dag_id/dagRuns/:dag_run_id/taskInstances/:task_id/logs/:task_try_number": "viewer",
  "GET /api/v1/importErrors": "viewer",
  "GET /api/v1/importErrors/:import_error_id": "viewer",
  // Triggering a run: user.
  "POST /api/v1/dags/:dag_id/dagRuns": "user",
  // Pausing, setting states and notes, clearing and deleting: op.
  "PATCH /api/v1/dags": "op",
  "PATCH /api/v1/dags/:dag_id": "op",
  "PATCH /api/v1/dags/:dag_id/dagRuns/:dag_run_id": "op",
  "DELETE /api/v1/dags/:dag_id/dagRuns/:dag_run_id": "op",
  "PATCH /api/v1/dags/:dag_id/dagRuns/:dag_run_id/setNote": "op",
  "POST /api/v1/dags/:dag_id/dagRuns/:dag_run_id/clear": "op",
  "POST /api/v1/dags/:dag_id/clearTaskInstances": "op",
  // The host inventory: viewers read it; adding, draining and removing hosts is admin only.
  "GET /api/v1/hosts": "viewer",
  "GET /api/v1/hosts/:name": "viewer",
  "POST /api/v1/hosts/:name/probe": "op", // :name `~` probes every host (SSH to each; results written)
  "POST /api/v1/hosts": "admin",
  "POST /api/v1/hosts/:name/drain": "admin",
  "POST /api/v1/hosts/:name/activate": "admin",
  "DELETE /api/v1/hosts/:name": "admin",
  // Pages and their live streams: viewer.
  "GET /home": "viewer",
  "GET /home/events": "viewer",
  "GET /dags/:dag_id/grid": "viewer",
  "GET /dags/:dag_id/grid/table": "viewer",
  "GET /dags/:dag_id/grid/events": "viewer",
  "GET /dags/:dag_id/trigger": "viewer",
  "GET /dags/:dag_id/graph": "viewer",
  "GET /dags/:dag_id/code": "viewer",
  "GET /dags/:dag_id/runs/:run_id/tasks/:task_id/logs/:try": "viewer",
  "GET /hosts": "viewer",
  "GET /vms": "viewer",
  // The ask box: asking is user; answering a flow's questions and approving it, op.
  "POST /ui/ask": "user",
  "GET /ui/ask/flows/:flow_id": "viewer",
  "POST /ui/ask/flows/:flow_id/answer": "op",
  "POST /ui/ask/flows/:flow_id/approve": "op",
};

/** The role declared for a route ("GET", "/api/v1/dags/:dag_id"), or undefined when none is. */
export function routeRole(method: string, path: string): Role | "public" | undefined {
  const m = method.toUpperCase() === "HEAD" ? "GET" : method.toUpperCase();
  return Object.hasOwn(ROUTE_ROLES, `${m} ${path}`) ? ROUTE_ROLES[`${m} ${path}`] : undefined;
}

/** requireAuth's policy for the web UI: the declared role of the matched route; a route without one is an error, never a guess. */
export function webUiRole(req: Request): Role {
  const routePath = (req.route as { path?: unknown } | undefined)?.path;
  const path = `${req.baseUrl}${typeof routePath === "string" ? routePath : req.path}`;
  const role = routeRole(req.method, path);
  if (role === undefined || role === "public") throw new Error(`no role declared for ${req.method} ${path} (route-roles.ts)`);
  return role;
}

/** A route as the express app registered it. */
export interface RegisteredRoute {
  method: string;
  path: string;
}

interface Layer {
  rawPath?: unknown;
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** Every route an express 5 app registers: its router's routes and those of each mounted router. */
export function registeredRoutes(app: object): RegisteredRoute[] {
  const out: RegisteredRoute[] = [];
  const walk = (stack: Layer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        for (const p of ([] as string[]).concat(layer.route.path)) {
          for (const m of Object.keys(layer.route.methods)) if (m !== "_all") out.push({ method: m.toUpperCase(), path: prefix + p });
        }
      } else if (layer.handle?.stack) {
        walk(layer.handle.stack, prefix + (typeof layer.rawPath === "string" && layer.rawPath !== "/" ? layer.rawPath : ""));
      }
    }
  };
  walk((app as { router?: { stack?: Layer[] } }).router?.stack ?? [], "");
  const seen = new Set<string>();
  return out.filter((r) => !seen.has(`${r.method} ${r.path}`) && Boolean(seen.add(`${r.method} ${r.path}`)));
}

/**
 * Start-up check: every registered route has a declared role (and every declaration a route, so
 * the table cannot drift). Throws one error naming each offender.
 */
export function assertRolesDeclared(app: object, roles: Readonly<Record<string, Role | "public">> = ROUTE_ROLES): void {
  const routes = registeredRoutes(app);
  if (routes.length === 0) throw new Error("no routes found on the app: cannot check their roles (express internals changed?)");
  const keys = new Set(routes.map((r) => `${r.method} ${r.path}`));
  const missing = [...keys].filter((k) => !Object.hasOwn(roles, k));
  const stale = Object.keys(roles).filter((k) => !keys.has(k));
  const bad = Object.entries(roles).filter(([, r]) => r !== "public" && !(ROLES as readonly string[]).includes(r));
  if (missing.length || stale.length || bad.length) {
    const parts = [
      missing.length ? `routes without a declared role: ${missing.join(", ")}` : "",
      stale.length ? `roles declared for no route: ${stale.join(", ")}` : "",
      bad.length ? `unknown roles: ${bad.map(([k, r]) => `${k} → ${r}`).join(", ")}` : "",
    ];
    throw new Error(`web UI route roles (route-roles.ts): ${parts.filter(Boolean).join("; ")}`);
  }
}
