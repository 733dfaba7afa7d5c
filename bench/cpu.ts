import { readdirSync, readFileSync } from "node:fs";

/** CPU seconds used so far by this process and by every process named postgres / redis-server. */
export interface CpuSnapshot {
  node: number;
  postgres: number;
  redis: number;
}

const TICK = 100; // USER_HZ on Linux

function servers(): { postgres: number; redis: number } {
  const out = { postgres: 0, redis: 0 };
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const secs = (Number(f[11]) + Number(f[12])) / TICK; // utime + stime
      if (comm === "postgres") out.postgres += secs;
      else if (comm === "redis-server") out.redis += secs;
    } catch {
      // the process ended between listing and reading
    }
  }
  return out;
}

export function cpuSnapshot(): CpuSnapshot {
  const u = process.cpuUsage();
  return { node: (u.user + u.system) / 1e6, ...servers() };
}

/** Microseconds of CPU per unit of work between two snapshots, split by process. */
export function cpuPerUnit(a: CpuSnapshot, b: CpuSnapshot, units: number): string {
  const us = (k: keyof CpuSnapshot) => ((b[k] - a[k]) * 1e6) / units;
  const total = us("node") + us("postgres") + us("redis");
  return `${total.toFixed(0)} µs CPU each (node ${us("node").toFixed(0)}, postgres ${us("postgres").toFixed(0)}, redis ${us("redis").toFixed(0)})`;
}
