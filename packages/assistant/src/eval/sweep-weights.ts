/**
 * Sweeps each router weight alone (the others at their defaults) over a range and prints, per value,
 * how many labelled lines of the development sets are right on dag, params and status.
 * Usage: pnpm exec tsx packages/assistant/src/eval/sweep-weights.ts [--dags=<dir>]
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { createOfflineRouter } from "../router/offline-router";
import { DEFAULT_WEIGHTS, type RouterWeights } from "../router/route-weights";
import { parseJsonl, scoreLine, type EvalCase } from "./eval-score";
import { loadEvalCatalog } from "./load-catalog";

const TEST = path.resolve(__dirname, "../../test");
const SETS = [
  path.resolve(TEST, "../../../../shared/eval/intents-dev.jsonl"),
  ...["intents-heldout.jsonl", "intents-blind.jsonl", "eval/intents-routing-dev.jsonl", "eval/intents-operator-dev.jsonl"].map((f) => path.resolve(TEST, f)),
];
const RANGES: Record<keyof RouterWeights, number[]> = {
  alias: [0, 2, 3, 4, 6, 8, 12],
  bm25: [0, 0.5, 1, 1.5, 2, 2.5, 3, 4, 6],
  explicitCheck: [0, 0.5, 1, 1.5, 2, 3, 4],
  offTopicOverride: [1, 2, 3, 4, 6, 8],
  fallbackConfidence: [0.5],
  confidenceScale: [3],
};

async function main(): Promise<void> {
  const dagsArg = process.argv.find((a) => a.startsWith("--dags="))?.slice("--dags=".length);
  const catalog = await loadEvalCatalog(dagsArg);
  const cases: EvalCase[] = SETS.flatMap((f) => parseJsonl(readFileSync(f, "utf8")));
  const right = (weights: Partial<RouterWeights>) => {
    const router = createOfflineRouter(catalog.entries, { weights });
    return cases.filter((c) => {
      const o = scoreLine(c, router.route(c.intent));
      return o && o.dagOk && o.paramsOk !== false && o.statusOk !== false;
    }).length;
  };
  process.stdout.write(`${JSON.stringify({ lines: cases.length, defaults: DEFAULT_WEIGHTS, right_at_defaults: right({}) })}\n`);
  for (const [name, values] of Object.entries(RANGES) as [keyof RouterWeights, number[]][]) {
    if (values.length < 2) continue;
    process.stdout.write(`${JSON.stringify({ weight: name, right_by_value: Object.fromEntries(values.map((v) => [v, right({ [name]: v })])) })}\n`);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`sweep failed: ${(err as Error).message}\n`);
  process.exitCode = 1;
});
