import { readdirSync, readFileSync } from "node:fs";
import type { ServiceProc } from "../chaos/service-proc";

const TICK = 100; // USER_HZ on Linux

/** utime + stime of a process in seconds; 0 once it is gone. */
function cpuOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / TICK;
  } catch {
    return 0;
  }
}

/**
 * CPU seconds the stack spends on one part of the bench, independent of how loaded the machine
 * is (wall times on a shared machine are not): each service, and the Postgres backends serving
 * the bench's database (other databases on the server are not counted).
 */
export function cpuUse(database: string, procs: () => ServiceProc[]): { stop(): Record<string, number> } {
  // A backend's title names its database: `postgres: [<cluster>: ]<user> <database> <client> <state>`.
  const backends = () =>
    readdirSync("/proc")
      .filter((d) => /^\d+$/.test(d))
      .filter((pid) => {
        try {
          const title = readFileSync(`/proc/${pid}/cmdline`, "utf8");
          return title.startsWith("postgres: ") && title.split(" ").includes(database);
        } catch {
          return false;
        }
      })
      .map(Number);
  const snap = () => {
    const out = new Map<string, number>();
    for (const p of procs()) {
      const pid = p.pid();
      if (pid) out.set(p.name, cpuOf(pid));
    }
    for (const pid of backends()) out.set(`pg:${pid}`, cpuOf(pid));
    return out;
  };
  const before = snap();
  return {
    stop() {
      const after = snap();
      const used: Record<string, number> = {};
      for (const [k, v] of after) {
        // A backend or worker that started during the part counts from zero.
        const name = k.startsWith("pg:") ? "postgres" : k.replace(/^worker-\d+$/, "workers");
        used[name] = (used[name] ?? 0) + v - (before.get(k) ?? 0);
      }
      return used;
    },
  };
}

/** `name 1.23 s, …` largest first, with the total. */
export function formatCpu(used: Record<string, number>): string {
  const total = Object.values(used).reduce((a, b) => a + b, 0);
  const parts = Object.entries(used)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${v.toFixed(2)}`);
  return `${total.toFixed(2)} s CPU (${parts.join(", ")})`;
}
