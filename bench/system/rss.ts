import type { ServiceProc } from "../chaos/service-proc";

/** RSS (MB) of each service now, by service name (workers as worker-N). */
export function rssNow(procs: ServiceProc[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of procs) {
    const mb = p.rssMb();
    if (mb !== undefined) out[p.name] = mb;
  }
  return out;
}

/** Peak RSS of each service while sampling every `everyMs`, until `stop()`. */
export function rssPeaks(procs: () => ServiceProc[], everyMs = 250): { stop(): Record<string, number> } {
  const peak: Record<string, number> = {};
  const sample = () => {
    for (const [k, v] of Object.entries(rssNow(procs()))) peak[k] = Math.max(peak[k] ?? 0, v);
  };
  sample();
  const t = setInterval(sample, everyMs);
  return {
    stop() {
      clearInterval(t);
      sample();
      return peak;
    },
  };
}
