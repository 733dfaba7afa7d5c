import type { Request } from "express";
import { ACTION_ROLES as A, type Role } from "@svc/http";

/**
 * The lowest role each assistant API route needs, declared once per route ("METHOD /path", express
 * syntax), in the web UI's shape (services/web-ui/src/route-roles.ts). Answering and cancelling a
 * flow need `user` here and, in answerFlow/cancelFlow, to be the flow's creator unless the caller
 * is an op or above; the web UI's ask box forwards to these routes with the caller's credentials.
 * Each role is an action of @svc/http's ACTION_ROLES, the table the web UI's routes and the MCP
 * tools name too, so the same thing needs the same role whichever way it is asked.
 */
export const ASSISTANT_ROUTE_ROLES: Readonly<Record<string, Role | "public">> = {
  "GET /health": "public",
  "GET /openapi.json": "public",
  "GET /docs": "public",
  // Reads and chat: viewer.
  "POST /chat": A.read,
  "GET /metrics": A.read,
  "GET /orchestrator/status": A.read,
  "GET /orchestrator/dags": A.read,
  "GET /orchestrator/flows/:flow_id": A.read,
  "GET /orchestrator/flows/:flow_id/events": A.read,
  // Planning: user.
  "POST /orchestrator/intent": A.submit_intent,
  "POST /orchestrator/observe": A.submit_intent,
  // A flow's own questions and its cancelling: user, the flow's creator only (an op: any flow).
  "POST /orchestrator/flows/:flow_id/answer": A.answer_own_flow,
  "POST /orchestrator/flows/:flow_id/cancel": A.answer_own_flow,
  // Approving: op (admin for a flow setting an admin-only param, checked by approveFlow).
  "POST /orchestrator/flows/:flow_id/approve": A.approve_flow,
};

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const MATCHERS = Object.entries(ASSISTANT_ROUTE_ROLES).map(([key, role]) => {
  const [method, path] = key.split(" ") as [string, string];
  const pattern = path
    .split("/")
    .map((seg) => (seg.startsWith(":") ? "[^/]+" : escape(seg)))
    .join("/");
  return { method, re: new RegExp(`^${pattern}$`), role };
});

/**
 * requireAuth's policy for the assistant API (it runs before the routers, so it matches the path
 * against the table): the declared role of the route; a path no route serves needs only a login
 * (it answers 404).
 */
export function assistantRole(req: Pick<Request, "method" | "path">): Role {
  const method = req.method.toUpperCase() === "HEAD" ? "GET" : req.method.toUpperCase();
  const found = MATCHERS.find((m) => m.method === method && m.re.test(req.path));
  return !found || found.role === "public" ? "viewer" : found.role;
}
