import type { RouteCandidate, RouteResult, RouterCatalogEntry } from "../types";
import { describeCatalogue } from "../catalog/catalog-entry";
import { extractValues } from "../params/extract-params";
import { settleParams, type SettledParams } from "../params/settle-params";
import { ALIASES, createAliasMatcher, type AliasDefinition, type AliasMatch } from "./aliases";
import { analyse } from "./analyse";
import { createDagBm25Index, type Bm25Hit } from "./bm25-index";
import { DOMAIN_KNOWLEDGE, knowledgeFromTags } from "./domain-knowledge";
import { bareObjectName, frameRefusal, verbsFromFrame } from "./frame-decision";
import { readFrame, positiveText, type IntentFrame } from "./intent-frame";
import { createKeywordScorer, detectVerbs, type IntentVerbs } from "./keyword-scorer";
import { createIntentParser, type ParsedIntent } from "./parse-intent";
import { checkSafety } from "./safety-gate";

/** Thresholds of the offline router. */
export interface RouterThresholds {
  /** Minimum score of the best DAG. */
  minScore: number;
  /** Minimum (best - runner-up) / best. */
  minMargin: number;
}

/** Options for createOfflineRouter. */
export interface OfflineRouterOptions {
  aliases?: readonly AliasDefinition[];
  thresholds?: Partial<RouterThresholds>;
}

export const DEFAULT_THRESHOLDS: RouterThresholds = { minScore: 2, minMargin: 0.3 };
/** An exact alias is worth more than any keyword evidence. */
const ALIAS_BOOST = 6;
/**
 * BM25 adds catalogue evidence (descriptions, examples) on top of the built-in keywords: the DAG's
 * share of the total (raw minisearch scores vary by orders of magnitude between queries) times the
 * share of the request's words it covers (so one stray shared word in a one-DAG catalogue is not a match).
 */
const BM25_WEIGHT = 2.5;

function bm25Points(hit: Bm25Hit | undefined, total: number): number {
  return hit && total > 0 ? (BM25_WEIGHT * hit.score * hit.coverage) / total : 0;
}

/** True when the request states an image or a size: what only a machine has. */
function statesMachineValues(parsed: ParsedIntent): boolean {
  const v = extractValues(parsed).values;
  return ["image", "cpus", "memory_mb", "disk_gb"].some((k) => v[k] !== undefined);
}

/** Evidence a request needs to be routed despite off-topic words in it. */
const OFF_TOPIC_OVERRIDE = 3;
/** A request whose verb is "check"/"verify" in any language leans to the read-only check. */
const EXPLICIT_CHECK_BONUS = 1.5;

const CHECK_DAGS = new Set(DOMAIN_KNOWLEDGE.filter((k) => k.checks).map((k) => k.dag_id));
const isCheckDag = (dagId: string) => CHECK_DAGS.has(dagId);
const GENERIC_DAGS = new Set(DOMAIN_KNOWLEDGE.filter((k) => k.generic).map((k) => k.dag_id));

/** The model-free router: safety gate, aliases, keywords and BM25, thresholds, params. */
export interface OfflineRouter {
  readonly catalog: readonly RouterCatalogEntry[];
  route(intent: string): RouteResult;
  /** Params the request states for one DAG, validated by its schema, and what must be asked. */
  paramsFor(intent: string, dagId: string): SettledParams & { unsafe: boolean };
}

interface Ranked {
  dag_id: string;
  score: number;
  evidence: string[];
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

/** Builds the offline router for one catalogue. */
export function createOfflineRouter(catalog: readonly RouterCatalogEntry[], options: OfflineRouterOptions = {}): OfflineRouter {
  const parse = createIntentParser(catalog);
  const bm25 = createDagBm25Index(catalog);
  const matchAliases = createAliasMatcher(options.aliases ?? ALIASES);
  const thresholds = { ...DEFAULT_THRESHOLDS, ...options.thresholds };
  const byId = new Map(catalog.map((e) => [e.dag_id, e]));
  const builtIn = new Set(DOMAIN_KNOWLEDGE.map((k) => k.dag_id));
  const scoreKeywords = createKeywordScorer(catalog.filter((e) => !builtIn.has(e.dag_id) && e.tags.length > 0).map((e) => knowledgeFromTags(e.dag_id, e.tags)));
  // A DAG's own words: an operation it names itself ("backup") is supported by it.
  const ownWords = new Map(catalog.map((e) => [e.dag_id, new Set(analyse([e.description ?? "", ...e.tags, ...e.examples].join(" ")))]));
  const offersOperation = (dagId: string, verb: string) => analyse(verb).every((w) => ownWords.get(dagId)?.has(w));

  function rank(parsed: ParsedIntent, aliases: AliasMatch[], verbs: IntentVerbs, explicitCheck = false): Ranked[] {
    const keywords = scoreKeywords(parsed.terms, verbs);
    const lexical = bm25.score(parsed.terms);
    const total = [...lexical.values()].reduce((a, b) => a + b.score, 0);
    return catalog
      .map((e) => {
        const kw = keywords.get(e.dag_id);
        const alias = aliases.find((a) => a.dag_id === e.dag_id);
        const asked = explicitCheck && isCheckDag(e.dag_id) ? EXPLICIT_CHECK_BONUS : 0;
        const score = (kw?.score ?? 0) + bm25Points(lexical.get(e.dag_id), total) + (alias ? ALIAS_BOOST : 0) + asked;
        const evidence = [...(alias ? [`alias "${alias.format}"`] : []), ...(kw?.matched ?? []).map((m) => `"${m}"`)];
        return { dag_id: e.dag_id, score: round(score), evidence };
      })
      .sort((a, b) => b.score - a.score);
  }

  function paramsFromParsed(
    parsed: ParsedIntent,
    entry: RouterCatalogEntry,
    aliases: AliasMatch[],
    frame: IntentFrame = readFrame(parsed.raw),
  ): SettledParams & { unsafe: boolean } {
    // Values come from what was asked for, not from what was negated or tried and failed.
    const extracted = extractValues(parsed, { values: parse(positiveText(frame)), action: frame.action, frame });
    // The general extractor has already vetted names; an alias only adds what it implies (action).
    const implied = Object.fromEntries(Object.entries(aliases.find((a) => a.dag_id === entry.dag_id)?.params ?? {}).filter(([k]) => k === "action"));
    return { ...settleParams(entry, extracted, implied), unsafe: extracted.shell };
  }

  const refuse = (kind: "unsafe" | "out_of_scope" | "low_confidence", message: string, candidates: RouteCandidate[], confidence = 0): RouteResult => ({
    status: "rejected",
    dag_id: null,
    confidence,
    params: {},
    candidates,
    reason: message,
    refused: { kind, message },
    mode: "offline",
    warnings: [],
  });

  /** The route for a chosen DAG: params settled, status from what must still be asked. */
  function finish(
    entry: RouterCatalogEntry,
    parsed: ParsedIntent,
    aliases: AliasMatch[],
    frame: IntentFrame,
    confidence: number,
    candidates: RouteCandidate[],
    reason: string,
  ): RouteResult {
    const { params, warnings, input, unsafe: shellValue } = paramsFromParsed(parsed, entry, aliases, frame);
    if (shellValue) return refuse("unsafe", "I only run catalogue workflows with validated parameters, never shell text: a value in the request carries shell syntax.", []);
    const ask = input.length > 0;
    return {
      status: ask ? "needs_input" : "ready",
      ...(ask ? { question: input[0]!.question, input } : {}),
      dag_id: entry.dag_id,
      confidence,
      params,
      candidates,
      reason,
      mode: "offline",
      warnings,
    };
  }

  return {
    catalog,
    route(intent) {
      const gate = checkSafety(intent);
      // Off-topic words ("coffee", "weather") only refuse a request that asks for nothing the catalogue does.
      if (gate && gate.kind !== "out_of_scope") return refuse(gate.kind, gate.message, []);
      const parsed = parse(intent);
      const frame = readFrame(intent);
      const aliases = matchAliases(parsed.text).filter((a) => !a.params.action || a.params.action === frame.action);
      const verbs = verbsFromFrame(frame, detectVerbs(parsed.terms));
      const positive = frame.excluded.size > 0 ? parse(positiveText(frame)) : parsed;
      const why = frameRefusal(frame, positive.terms);
      if (why) return refuse("out_of_scope", `${why} ${describeCatalogue(catalog)}`, []);
      const checkDag = catalog.find((e) => isCheckDag(e.dag_id));
      const generic = catalog.find((e) => GENERIC_DAGS.has(e.dag_id));
      // A question about the state of things, or a request to list, is answered by a read-only check, never by a change.
      if (frame.stateQuestion || frame.action === "list") {
        if (gate) return refuse(gate.kind, gate.message, []);
        if (!checkDag) return refuse("out_of_scope", `No read-only workflow can answer that. ${describeCatalogue(catalog)}`, []);
        return finish(checkDag, parsed, aliases, frame, 1, [{ dag_id: checkDag.dag_id, score: 1 }], "a question about state: answered by a read-only check");
      }
      if ((frame.question && (verbs.create || verbs.delete)) || (frame.asks && !verbs.check)) {
        return refuse(
          "out_of_scope",
          `That reads as a question, not a request to change anything; nothing was run. Say what to do ("create …", "delete …") to run a workflow. ${describeCatalogue(catalog)}`,
          [],
        );
      }
      // Nouns of negated parts ("don't remove freeipa, install a CA instead") are not what is asked for.
      const explicitCheck = frame.action === "check";
      const onPositive = rank(positive, aliases, verbs, explicitCheck);
      const ranked = (onPositive[0]?.score ?? 0) >= thresholds.minScore ? onPositive : rank(parsed, aliases, verbs, explicitCheck);
      const candidates = ranked
        .filter((r) => r.score > 0)
        .slice(0, 3)
        .map(({ dag_id, score }) => ({ dag_id, score }));
      const [best, second] = ranked;
      // "decommission web-07": a delete of a bare name is a delete of the VM of that name.
      const bare = verbs.delete && generic && (!best || best.score < thresholds.minScore) ? bareObjectName(frame) : null;
      if (bare) return finish(generic!, parse(`${intent} vm ${bare}`), [], frame, 0.5, candidates, `delete of "${bare}": the generic VM workflow`);
      // "spin up ubuntu 24.04 with 2c/4g": a create that states only machine values (image, sizes) is a VM.
      if (verbs.create && generic && (!best || best.score < thresholds.minScore) && statesMachineValues(positive)) {
        return finish(generic, parsed, aliases, frame, 0.5, candidates, "a create stating only machine values (image, CPUs, memory, disk): the generic VM workflow");
      }
      if (verbs.unsupported && !verbs.create && !verbs.delete && (!best || best.score < thresholds.minScore)) {
        return refuse("out_of_scope", `No workflow in the catalogue can ${verbs.unsupported} that. ${describeCatalogue(catalog)}`, candidates);
      }
      if (!best || best.score <= 0) {
        return refuse("out_of_scope", `Nothing in the request matches a workflow. ${describeCatalogue(catalog)}`, candidates);
      }
      // "upgrade openshift" or "stop the vm" share a noun with a deploy workflow but ask for something else.
      const unsupported = verbs.unsupported && !offersOperation(best.dag_id, verbs.unsupported);
      if (unsupported && !verbs.create && !verbs.delete && !(verbs.check && isCheckDag(best.dag_id))) {
        return refuse("out_of_scope", `No workflow in the catalogue can ${verbs.unsupported} that. ${describeCatalogue(catalog)}`, candidates);
      }
      if (gate && !(best.score >= OFF_TOPIC_OVERRIDE && (verbs.create || verbs.delete || verbs.check))) return refuse(gate.kind, gate.message, []);
      const margin = (best.score - (second?.score ?? 0)) / best.score;
      const confidence = round(Math.max(0, margin) * Math.min(1, best.score / (thresholds.minScore * 3)));
      if (best.score < thresholds.minScore) {
        return refuse("low_confidence", `Not enough evidence for any workflow (best ${best.dag_id} at ${best.score}). ${describeCatalogue(catalog)}`, candidates, confidence);
      }
      if (margin < thresholds.minMargin) {
        return refuse("low_confidence", `The request fits ${best.dag_id} and ${second?.dag_id} about equally; please say which one you mean.`, candidates, confidence);
      }
      const reason = `matched ${best.evidence.slice(0, 5).join(", ") || "catalogue text"} (score ${best.score}, margin ${round(margin)})`;
      return finish(byId.get(best.dag_id)!, parsed, aliases, frame, confidence, candidates, reason);
    },
    paramsFor(intent, dagId) {
      const entry = byId.get(dagId);
      if (!entry) return { params: {}, warnings: [`unknown workflow ${dagId}`], input: [], unsafe: false };
      const parsed = parse(intent);
      return paramsFromParsed(parsed, entry, matchAliases(parsed.text));
    },
  };
}
