/**
 * Routes every line of an intents JSONL file offline; prints one JSON line each ({intent, dag_id,
 * params, status}, plus question/input for needs_input and reason for rejected) and a summary on
 * stderr; --report adds one line per category, --failures one per miss.
 */
import { readFileSync } from "node:fs";
import { createOfflineRouter } from "../router/offline-router";
import { loadEvalCatalog } from "./load-catalog";
import { parseJsonl, reportByCategory, scoreLine, summarize, type EvalOutcome } from "./eval-score";

async function main(argv: string[]): Promise<number> {
  const file = argv.find((a) => !a.startsWith("--"));
  const dagsArg = argv.find((a) => a.startsWith("--dags="))?.slice("--dags=".length);
  if (!file) {
    process.stderr.write("usage: eval:intents <file.jsonl> [--dags=<dir>] [--failures] [--report]\n");
    return 2;
  }
  const cases = parseJsonl(readFileSync(file, "utf8"));
  const catalog = await loadEvalCatalog(dagsArg);
  // Always the offline router: the eval must not depend on keys in the environment.
  const router = createOfflineRouter(catalog.entries);
  const outcomes: EvalOutcome[] = [];
  for (const c of cases) {
    const r = router.route(c.intent);
    const line = {
      intent: c.intent,
      dag_id: r.dag_id,
      params: r.params,
      status: r.status,
      ...(r.status === "needs_input" ? { question: r.question, input: r.input } : {}),
      ...(r.status === "rejected" ? { reason: r.refused?.message ?? r.reason } : {}),
    };
    process.stdout.write(`${JSON.stringify(line)}\n`);
    const o = scoreLine(c, r);
    if (o) outcomes.push(o);
  }
  if (outcomes.length > 0) {
    const summary = summarize(cases.length, outcomes);
    process.stderr.write(`${JSON.stringify({ summary: { ...summary, catalog: catalog.source } })}\n`);
    if (argv.includes("--failures")) {
      for (const o of outcomes.filter((x) => !x.dagOk || x.paramsOk === false || x.statusOk === false)) process.stderr.write(`${JSON.stringify({ failure: o })}\n`);
    }
    if (argv.includes("--report")) {
      for (const row of reportByCategory(outcomes)) process.stderr.write(`${JSON.stringify({ category: row })}\n`);
    }
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`eval failed: ${(err as Error).message}\n`);
    process.exitCode = 1;
  },
);
