import type { Request } from "express";
import { ACTION_ROLES as A, ROLES, type Role } from "@svc/http";

/**
 * The lowest role each route needs, declared once per route ("METHOD /full/path", express syntax),
 * never guessed from the method or the path: each route names what it does in the one action
 * table of @svc/http (action-roles.ts), which the MCP tools use too. A route missing here stops
 * the app at start-up (assertRolesDeclared); `public` routes are served without credentials.
 */
export const ROUTE_ROLES: Readonly<Record<string, Role | "public">> = {
  "GET /": "public",
  "GET /api/v1/openapi.json": "public",
  "GET /api/v1/health": "public",
  "GET /api/v1/version": "public",
  // Reads, and the list query sent as a POST body: viewer.
  "GET /api/v1/dags": A.read,
  "GET /api/v1/dags/:dag_id": A.read,
  "GET /api/v1/dags/:dag_id/details": A.read,
  "GET /api/v1/dags/:dag_id/tasks": A.read,
  "GET /api/v1/dagSources/:file_token": A.read,
  "GET /api/v1/dags/:dag_id/dagRuns": A.read,
  "POST /api/v1/dags/~/dagRuns/list": A.read,
  "GET /api/v1/dags/:dag_id/dagRuns/:dag_run_id": A.read,
  "GET /api/v1/dags/:dag_id/dagRuns/:dag_run_id/taskInstances": A.read,
  "GET /api/v1/dags/:dag_id/dagRuns/:dag_run_id/taskInstances/:task_id": A.read,
  "GET /api/v1/dags/:dag_id/dagRuns/:dag_run_id/taskInstances/:task_id/logs/:task_try_number": A.read,
  "GET /api/v1/importErrors": A.read,
  "GET /api/v1/importErrors/:import_error_id": A.read,
  // Triggering a run: user.
  "POST /api/v1/dags/:dag_id/dagRuns": A.trigger_run,
  // Pausing, setting states and notes, clearing and deleting: op.
  "PATCH /api/v1/dags": A.pause_dag,
  "PATCH /api/v1/dags/:dag_id": A.pause_dag,
  "PATCH /api/v1/dags/:dag_id/dagRuns/:dag_run_id": A.change_run,
  "DELETE /api/v1/dags/:dag_id/dagRuns/:dag_run_id": A.change_run,
  "PATCH /api/v1/dags/:dag_id/dagRuns/:dag_run_id/setNote": A.change_run,
  "POST /api/v1/dags/:dag_id/dagRuns/:dag_run_id/clear": A.clear_task_instances,
  "POST /api/v1/dags/:dag_id/clearTaskInstances": A.clear_task_instances,
  // The host inventory: viewers read it; adding, draining and removing hosts is admin only.
  "GET /api/v1/hosts": A.read,
  "GET /api/v1/hosts/:name": A.read,
  "POST /api/v1/hosts/:name/probe": A.probe_hosts, // :name `~` probes every host (SSH to each; results written)
  "POST /api/v1/hosts": A.manage_hosts,
  "POST /api/v1/hosts/:name/drain": A.manage_hosts,
  "POST /api/v1/hosts/:name/activate": A.manage_hosts,
  "DELETE /api/v1/hosts/:name": A.manage_hosts,
  // Pages and their live streams: viewer.
  "GET /home": A.read,
  "GET /home/events": A.read,
  "GET /dags/:dag_id/grid": A.read,
  "GET /dags/:dag_id/grid/table": A.read,
  "GET /dags/:dag_id/grid/events": A.read,
  "GET /dags/:dag_id/trigger": A.read,
  "GET /dags/:dag_id/graph": A.read,
  "GET /dags/:dag_id/code": A.read,
  "GET /dags/:dag_id/runs/:run_id/tasks/:task_id/logs/:try": A.read,
  "GET /hosts": A.read,
  "GET /vms": A.read,
  // The ask box: asking is user; answering a flow's questions is user, and the assistant API lets
  // only the flow's creator (or an op and above) answer it, as its own table says; approving, op.
  "POST /ui/ask": A.submit_intent,
  "GET /ui/ask/flows/:flow_id": A.read,
  "POST /ui/ask/flows/:flow_id/answer": A.answer_own_flow,
  "POST /ui/ask/flows/:flow_id/approve": A.approve_flow,
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
