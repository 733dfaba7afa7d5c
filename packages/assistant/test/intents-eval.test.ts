import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { CATALOG_FIXTURE } from "../src/catalog/catalog-fixture";
import { parseJsonl, reportByCategory, scoreLine, summarize, type EvalOutcome } from "../src/eval/eval-score";
import { loadEvalCatalog } from "../src/eval/load-catalog";
import { createOfflineRouter } from "../src/router/offline-router";
import type { RouterCatalogEntry } from "../src/types";

const ROOT = path.resolve(__dirname, "../../..");
const SETS = {
  dev: path.resolve(ROOT, "../shared/eval/intents-dev.jsonl"),
  heldout: path.resolve(__dirname, "intents-heldout.jsonl"),
  blind: path.resolve(__dirname, "intents-blind.jsonl"),
};

function evaluate(catalog: readonly RouterCatalogEntry[], file: string) {
  const router = createOfflineRouter(catalog);
  const cases = parseJsonl(readFileSync(file, "utf8"));
  const outcomes = cases.map((c) => scoreLine(c, router.route(c.intent))).filter((o): o is EvalOutcome => !!o);
  return { cases, outcomes, summary: summarize(cases.length, outcomes) };
}

describe("offline router on labelled intent sets (behaviour thresholds)", () => {
  // The fixture and the repository's DAG folder (loading it throws when dags/ is broken).
  const catalogs: { name: string; entries: readonly RouterCatalogEntry[] }[] = [{ name: "fixture", entries: CATALOG_FIXTURE }];
  beforeAll(async () => {
    catalogs.push({ name: "dags", entries: (await loadEvalCatalog()).entries });
  });

  test("the held-out set has at least 120 lines, refusals included", () => {
    const { cases, summary } = evaluate(CATALOG_FIXTURE, SETS.heldout);
    expect(cases.length).toBeGreaterThanOrEqual(120);
    expect(summary.refusals_expected).toBeGreaterThanOrEqual(20);
  });

  test.each(Object.entries(SETS))("%s set: top-1 ≥ 97%%, params exact ≥ 95%%, every out-of-scope or hostile line refused", (_name, file) => {
    for (const catalog of catalogs) {
      const { outcomes, summary } = evaluate(catalog.entries, file);
      const misses = outcomes.filter((o) => !o.dagOk || o.paramsOk === false).slice(0, 5);
      // Misses are part of the compared object so that a failure shows which lines went wrong.
      expect({ catalog: catalog.name, refusal_rate: summary.refusal_rate, misses }).toMatchObject({ catalog: catalog.name, refusal_rate: 1 });
      expect(summary.top1_accuracy).toBeGreaterThanOrEqual(0.97);
      expect(summary.params_exact_rate).toBeGreaterThanOrEqual(0.95);
    }
  });
});

describe("routing development set (actions, negation, questions, sizes, languages, invalid values)", () => {
  const file = path.resolve(__dirname, "eval/intents-routing-dev.jsonl");
  // The repository's catalogue: its params (configure, check_mode, ca_port, checks, keep_on_failure) are what the set asks for.
  let entries: readonly RouterCatalogEntry[] = CATALOG_FIXTURE;
  beforeAll(async () => {
    entries = (await loadEvalCatalog()).entries;
  });

  test("has at least 150 lines over every category, each line with an expected status", () => {
    const cases = parseJsonl(readFileSync(file, "utf8"));
    expect(cases.length).toBeGreaterThanOrEqual(150);
    expect(new Set(cases.map((c) => c.category))).toEqual(
      new Set(["delete_synonyms", "multilingual", "negation", "questions", "unsupported", "benign_words", "sizes", "params", "invalid_values", "needs_input", "hostile", "plain"]),
    );
    expect(cases.every((c) => c.status !== undefined)).toBe(true);
  });

  test("top-1 ≥ 97%, params exact ≥ 95%, and every rejected or needs_input line gets that status", () => {
    const { outcomes, summary } = evaluate(entries, file);
    const misses = outcomes.filter((o) => !o.dagOk || o.paramsOk === false || o.statusOk === false).slice(0, 5);
    expect({ top1: summary.top1_accuracy >= 0.97, params: summary.params_exact_rate >= 0.95, misses: misses.length <= 5 }).toEqual({ top1: true, params: true, misses: true });
    const guarded = outcomes.filter((o) => o.expectedStatus === "rejected" || o.expectedStatus === "needs_input");
    expect(guarded.filter((o) => !o.statusOk).map((o) => o.intent)).toEqual([]);
  });
});

describe("eval CLI", () => {
  let run: { stdout: string; stderr: string; status: number | null };
  beforeAll(() => {
    const tsx = path.join(ROOT, "node_modules/.bin/tsx");
    // Keys in the environment must not switch the eval to a model.
    run = spawnSync(tsx, [path.join(ROOT, "packages/assistant/src/eval/eval-cli.ts"), SETS.dev], {
      encoding: "utf8",
      env: { ...process.env, MODEL_PROVIDER_API_KEY: "sk-should-not-be-used", SVC_MODEL_BASE_URL: "http://127.0.0.1:9/v1" },
    });
  });

  test("prints one {intent, dag_id, params, status} JSON line per input on stdout, with reason when rejected", () => {
    expect(run.status).toBe(0);
    const lines = run.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(30);
    expect(Object.keys(lines[0]!).sort()).toEqual(["dag_id", "intent", "params", "status"]);
    expect(lines[0]).toEqual({ intent: "Deploy FreeIPA for me", dag_id: "identity_deployment", params: {}, status: "ready" });
    const rejected = lines.filter((l) => l.status === "rejected");
    expect(rejected.length).toBeGreaterThanOrEqual(6);
    for (const l of rejected) expect(l).toMatchObject({ dag_id: null, reason: expect.any(String) });
  });

  test("prints a summary line on stderr with top-1 accuracy, params exact-match, refusal rate and counts", () => {
    const summary = (JSON.parse(run.stderr.trim().split("\n")[0]!) as { summary: Record<string, unknown> }).summary;
    expect(summary).toMatchObject({
      lines: 30,
      labelled: 30,
      refusals_expected: 6,
      top1_accuracy: expect.any(Number),
      params_exact_rate: expect.any(Number),
      refusal_rate: expect.any(Number),
    });
  });
});

describe("operator-language sets (chat, slang, mentions, past runs, values not offered, parameters in words, names as typed, OS images)", () => {
  const KINDS = ["chat", "slang", "mentions", "past_runs", "unoffered_values", "param_words", "names_as_typed", "os_images"];
  let entries: readonly RouterCatalogEntry[] = CATALOG_FIXTURE;
  beforeAll(async () => {
    entries = (await loadEvalCatalog()).entries;
  });

  test("the development set has at least 150 lines over every kind, each with an expected status", () => {
    const cases = parseJsonl(readFileSync(path.resolve(__dirname, "eval/intents-operator-dev.jsonl"), "utf8"));
    expect(cases.length).toBeGreaterThanOrEqual(150);
    expect(new Set(cases.map((c) => c.category))).toEqual(new Set(KINDS));
    expect(cases.every((c) => c.status !== undefined)).toBe(true);
  });

  test.each(["intents-operator-dev.jsonl", "intents-operator-heldout.jsonl"])(
    "%s: top-1 ≥ 97%%, params exact ≥ 95%%, every must-not-act line refused and every needs_input line asked",
    (name) => {
      const { outcomes, summary } = evaluate(entries, path.resolve(__dirname, "eval", name));
      const misses = outcomes.filter((o) => !o.dagOk || o.paramsOk === false || o.statusOk === false).slice(0, 5);
      expect({ top1: summary.top1_accuracy >= 0.97, params: summary.params_exact_rate >= 0.95, refusal_rate: summary.refusal_rate, misses: misses.length <= 5 }).toEqual({
        top1: true,
        params: true,
        refusal_rate: 1,
        misses: true,
      });
      const guarded = outcomes.filter((o) => o.expectedStatus === "rejected" || o.expectedStatus === "needs_input");
      expect(guarded.filter((o) => !o.statusOk).map((o) => o.intent)).toEqual([]);
    },
  );
});

describe("kind sets (chat around the request, sizes in words, capacity and expiry questions, typos, retractions, unoffered things, delete verbs in other languages, cloud targets, lab members)", () => {
  const KINDS = ["chat", "sizes", "capacity", "expiry", "typos", "retraction", "unoffered", "delete_lang", "clouds", "lab_member"];
  let entries: readonly RouterCatalogEntry[] = CATALOG_FIXTURE;
  beforeAll(async () => {
    entries = (await loadEvalCatalog()).entries;
  });

  test("the fresh set has at least 150 lines over every kind, each with an expected status", () => {
    const cases = parseJsonl(readFileSync(path.resolve(__dirname, "eval/intents-kinds-fresh.jsonl"), "utf8"));
    expect(cases.length).toBeGreaterThanOrEqual(150);
    expect(new Set(cases.map((c) => c.kind))).toEqual(new Set(KINDS));
    expect(cases.every((c) => c.status !== undefined)).toBe(true);
  });

  test.each(["intents-kinds-fresh.jsonl", "intents-kinds-blind.jsonl"])(
    "%s: top-1 ≥ 95%% and params exact ≥ 95%% in every kind; every refusal, every host question marked as one (with the size asked about) and every needs_input line right",
    (name) => {
      const { outcomes } = evaluate(entries, path.resolve(__dirname, "eval", name));
      const byKind = reportByCategory(outcomes).map((k) => ({ kind: k.category, ok: k.top1_accuracy >= 0.95 && k.params_exact_rate >= 0.95 }));
      expect(byKind.filter((k) => !k.ok)).toEqual([]);
      const guarded = outcomes.filter((o) => o.expectedStatus === "rejected" || o.expectedStatus === "needs_input");
      expect(guarded.filter((o) => !o.statusOk).map((o) => o.intent)).toEqual([]);
    },
  );
});

describe("users and groups set (identity_deployment add_user, remove_user, add_group; the lab or server they are for)", () => {
  let entries: readonly RouterCatalogEntry[] = CATALOG_FIXTURE;
  beforeAll(async () => {
    entries = (await loadEvalCatalog()).entries;
  });

  test("every line routes, fills its params and gets its status: 100%", () => {
    const { cases, outcomes } = evaluate(entries, path.resolve(__dirname, "eval/intents-users.jsonl"));
    expect(cases.length).toBeGreaterThanOrEqual(15);
    expect(cases.every((c) => c.kind === "users" && c.status !== undefined)).toBe(true);
    expect(
      outcomes.filter((o) => !o.dagOk || o.paramsOk === false || o.statusOk === false).map((o) => `${o.intent} => ${o.got} ${JSON.stringify(o.params)} ${o.gotStatus}`),
    ).toEqual([]);
  });

  test("a catalogue whose identity workflow has no user actions still refuses a user inside a service", () => {
    expect(createOfflineRouter(CATALOG_FIXTURE).route("create a user alice in IdM")).toMatchObject({ status: "rejected", dag_id: null });
  });
});
