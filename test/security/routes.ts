/** The walker the web UI checks its route roles with at start-up (any express 5 app). */
export { registeredRoutes, type RegisteredRoute } from "../../services/web-ui/src/route-roles";
import type { RegisteredRoute } from "../../services/web-ui/src/route-roles";

/** A concrete URL for a route path: each `:param` becomes `x`. */
export function concrete(path: string): string {
  return path.replace(/:[A-Za-z0-9_]+/g, "x");
}

/** The routes (but `skip`) that do not answer `status` when called as `call` does: "METHOD path → got". */
export async function routesNotAnswering(
  routes: RegisteredRoute[],
  skip: Set<string>,
  status: number,
  call: (r: RegisteredRoute) => PromiseLike<{ status: number }>,
): Promise<string[]> {
  const wrong: string[] = [];
  for (const r of routes) {
    if (skip.has(`${r.method} ${r.path}`)) continue;
    const res = await call(r);
    if (res.status !== status) wrong.push(`${r.method} ${r.path} → ${res.status}`);
  }
  return wrong;
}
