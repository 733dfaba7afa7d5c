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
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, "");
  const seen = new Set<string>();
  return out.filter((r) => (seen.has(`${r.method} ${r.path}`) ? false : (seen.add(`${r.method} ${r.path}`), true)));
}

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
