/**
 * Offline routing latency and CPU: routes every line of the intent sets (held-out, blind, routing
 * dev) many times over the repository's catalogue and prints p50/p90/p99 per route call in
 * milliseconds and the process's CPU time (user + system) per intent in microseconds.
 * Usage: pnpm bench:router [rounds]
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { parseJsonl } from "../packages/assistant/src/eval/eval-score";
import { loadEvalCatalog } from "../packages/assistant/src/eval/load-catalog";
import { createOfflineRouter } from "../packages/assistant/src/router/offline-router";

const SETS = ["intents-heldout.jsonl", "intents-blind.jsonl", "eval/intents-routing-dev.jsonl"].map((f) => path.resolve(__dirname, "../packages/assistant/test", f));

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 20);
  const catalog = await loadEvalCatalog();
  const router = createOfflineRouter(catalog.entries);
  const intents = SETS.flatMap((f) => parseJsonl(readFileSync(f, "utf8")).map((c) => c.intent));
  // Warm-up: JIT and the spell fixer's cache, as in a long-running service.
  for (const i of intents) router.route(i);
  const times: number[] = [];
  const cpu0 = process.cpuUsage();
  for (let r = 0; r < rounds; r++) {
    for (const i of intents) {
      const t0 = performance.now();
      router.route(i);
      times.push(performance.now() - t0);
    }
  }
  const cpu = process.cpuUsage(cpu0);
  times.sort((a, b) => a - b);
  const ms = (n: number) => Math.round(n * 1000) / 1000;
  process.stdout.write(
    `${JSON.stringify({ catalog: catalog.source, intents: intents.length, calls: times.length, p50_ms: ms(quantile(times, 0.5)), p90_ms: ms(quantile(times, 0.9)), p99_ms: ms(quantile(times, 0.99)), max_ms: ms(times[times.length - 1]!), cpu_us_per_intent: Math.round(((cpu.user + cpu.system) / times.length) * 10) / 10 })}\n`,
  );
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).message}\n`);
  process.exitCode = 1;
});
