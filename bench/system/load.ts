import { spawn } from "node:child_process";
import path from "node:path";

const AUTOCANNON = path.resolve(__dirname, "../../node_modules/.bin/autocannon");

export interface CannonResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

/** autocannon (its own process) POSTing `body` as JSON to `url` with `connections` for `seconds`, with any extra `headers`. */
export function autocannon(url: string, body: unknown, connections: number, seconds: number, headers: Record<string, string> = {}): Promise<CannonResult> {
  return new Promise((resolve, reject) => {
    const extra = Object.entries(headers).flatMap(([k, v]) => ["-H", `${k}=${v}`]);
    const args = [
      "--json",
      "-c",
      String(connections),
      "-d",
      String(seconds),
      "-m",
      "POST",
      "-H",
      "content-type=application/json",
      ...extra,
      "-b",
      JSON.stringify(body),
      "-t",
      "30",
      url,
    ];
    const child = spawn(AUTOCANNON, args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += String(d)));
    const t = setTimeout(() => child.kill("SIGKILL"), (seconds + 60) * 1000);
    child.on("exit", (code) => {
      clearTimeout(t);
      try {
        const r = JSON.parse(out) as { requests: { total: number; average: number }; latency: { p50: number; p99: number }; errors: number; non2xx: number; duration: number };
        resolve({ requests: r.requests.total, rps: r.requests.total / r.duration, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx });
      } catch (e) {
        reject(new Error(`autocannon exited ${code}: ${String(e)}`));
      }
    });
  });
}

/** Latencies (ms) of GET `url` one after another until `stop` resolves (at most `max` requests). */
export async function probeLatency(url: string, stop: Promise<unknown>, max = 10000): Promise<number[]> {
  let done = false;
  void stop.then(() => (done = true));
  const xs: number[] = [];
  while (!done && xs.length < max) {
    const t0 = performance.now();
    try {
      const r = await fetch(url, { signal: AbortSignal.timeout(30000) });
      await r.arrayBuffer();
    } catch {
      // counted with its time: a failed request is as slow as it took
    }
    xs.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 20));
  }
  return xs;
}
