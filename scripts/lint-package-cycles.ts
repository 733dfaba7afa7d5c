// `pnpm lint` step: the workspace's packages depend on each other one way only. A cycle among
// them, through "dependencies" or "devDependencies" alike (a package's tests that need a package
// which needs it back), fails with the path of each cycle, as `a -> b (dev) -> a`.
import { readFileSync } from "node:fs";
import path from "node:path";
import { workspaceDirs } from "./lib/export-usage";

interface Edge {
  to: string;
  dev: boolean;
}

/** Each workspace package's edges to other workspace packages, by name. */
export function workspaceGraph(root: string): Map<string, Edge[]> {
  const manifests = workspaceDirs(root).map(
    (d) => JSON.parse(readFileSync(path.join(d, "package.json"), "utf8")) as { name?: string; dependencies?: Record<string, string>; devDependencies?: Record<string, string> },
  );
  const names = new Set(manifests.map((m) => m.name).filter((n): n is string => !!n));
  const graph = new Map<string, Edge[]>();
  for (const m of manifests) {
    if (!m.name) continue;
    const edges: Edge[] = [];
    for (const [deps, dev] of [
      [m.dependencies, false],
      [m.devDependencies, true],
    ] as const) {
      for (const to of Object.keys(deps ?? {}).sort()) if (names.has(to) && to !== m.name) edges.push({ to, dev });
    }
    graph.set(m.name, edges);
  }
  return graph;
}

/** One path of each cycle: the elementary cycles through each package, each reported once (from its smallest name). */
export function cyclesOf(graph: Map<string, Edge[]>): string[] {
  const found = new Set<string>();
  const out: string[] = [];
  for (const start of [...graph.keys()].sort()) {
    // Depth-first from `start`, through packages whose names sort after it: each cycle is found from its smallest member.
    const walk = (at: string, trail: string[], onTrail: Set<string>): void => {
      for (const e of graph.get(at) ?? []) {
        const step = `${e.to}${e.dev ? " (dev)" : ""}`;
        if (e.to === start) {
          const text = [start, ...trail, step].join(" -> ");
          if (!found.has(text)) {
            found.add(text);
            out.push(text);
          }
        } else if (e.to > start && !onTrail.has(e.to)) {
          onTrail.add(e.to);
          walk(e.to, [...trail, step], onTrail);
          onTrail.delete(e.to);
        }
      }
    };
    walk(start, [], new Set([start]));
  }
  return out;
}

function main(argv: string[]): number {
  const rootFlag = argv.indexOf("--root");
  const root = path.resolve(rootFlag >= 0 ? argv[rootFlag + 1]! : path.join(__dirname, ".."));
  const cycles = cyclesOf(workspaceGraph(root));
  for (const c of cycles) console.error(`dependency cycle: ${c}`);
  if (cycles.length > 0) {
    console.error(
      `${cycles.length} dependency cycle(s) among the workspace's packages: a package's tests use @svc/testing or their own helpers, never a package that depends on it.`,
    );
    return 1;
  }
  return 0;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
