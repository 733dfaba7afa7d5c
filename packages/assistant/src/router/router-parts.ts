import type { RouteCandidate, RouteRefusal, RouteResult, RouterCatalogEntry } from "../types";
import { extractValues } from "../params/extract-params";
import { settleParams, type SettledParams } from "../params/settle-params";
import type { AliasMatch } from "./aliases";
import { analyse } from "./analyse";
import { LAB_DAG } from "./lab-route";
import { createDagBm25Index, type Bm25Hit } from "./bm25-index";
import { DOMAIN_KNOWLEDGE, knowledgeFromTags } from "./domain-knowledge";
import { positiveText, readFrame, type IntentFrame } from "./intent-frame";
import { createKeywordScorer, type IntentVerbs } from "./keyword-scorer";
import type { ParsedIntent } from "./parse-intent";
import type { RouterThresholds, RouterWeights } from "./route-weights";

/** What the stages of route() read about one request. */
export interface RequestContext {
  /** The message as typed (the safety gate read all of it). */
  intent: string;
  /** The message without the chat around the request. */
  request: string;
  parsed: ParsedIntent;
  frame: IntentFrame;
  aliases: AliasMatch[];
  verbs: IntentVerbs;
  /** The request without negated parts. */
  positive: ParsedIntent;
  /** An off-topic refusal of the request's own words, if any. */
  scope: RouteRefusal | null;
}

/** One DAG's score and the evidence for it. */
export interface Ranked {
  dag_id: string;
  score: number;
  evidence: string[];
}

export const round = (n: number) => Math.round(n * 1000) / 1000;

/** A rejected route. */
export function refusal(kind: RouteRefusal["kind"], message: string, candidates: RouteCandidate[], confidence = 0, extra: Partial<RouteRefusal> = {}): RouteResult {
  return { status: "rejected", dag_id: null, confidence, params: {}, candidates, reason: message, refused: { kind, message, ...extra }, mode: "offline", warnings: [] };
}

const CHECK_DAGS = new Set(DOMAIN_KNOWLEDGE.filter((k) => k.checks).map((k) => k.dag_id));
const GENERIC_DAGS = new Set(DOMAIN_KNOWLEDGE.filter((k) => k.generic).map((k) => k.dag_id));
export const isCheckDag = (dagId: string) => CHECK_DAGS.has(dagId);

/** The router's pieces for one catalogue, shared by the stages of route(). */
export type RouterParts = ReturnType<typeof createRouterParts>;

export function createRouterParts(catalog: readonly RouterCatalogEntry[], parse: (raw: string) => ParsedIntent, thresholds: RouterThresholds, weights: RouterWeights) {
  // The lab composes every product, so its words are theirs: it is never scored, only chosen by
  // routeLab (lab-route.ts) when a lab itself is what the request acts on.
  const scored = catalog.filter((e) => e.dag_id !== LAB_DAG);
  const bm25 = createDagBm25Index(scored);
  const byId = new Map(catalog.map((e) => [e.dag_id, e]));
  const builtIn = new Set(DOMAIN_KNOWLEDGE.map((k) => k.dag_id));
  const scoreKeywords = createKeywordScorer(scored.filter((e) => !builtIn.has(e.dag_id) && e.tags.length > 0).map((e) => knowledgeFromTags(e.dag_id, e.tags)));
  // A DAG's own words: an operation it names itself ("backup") is supported by it.
  const ownWords = new Map(catalog.map((e) => [e.dag_id, new Set(analyse([e.description ?? "", ...e.tags, ...e.examples].join(" ")))]));

  const bm25Points = (hit: Bm25Hit | undefined, total: number) => (hit && total > 0 ? (weights.bm25 * hit.score * hit.coverage) / total : 0);

  /** Every DAG scored: keywords + catalogue text + alias + the check bonus, best first. */
  function rank(parsed: ParsedIntent, aliases: AliasMatch[], verbs: IntentVerbs, explicitCheck = false): Ranked[] {
    const keywords = scoreKeywords(parsed.terms, verbs);
    const lexical = bm25.score(parsed.terms);
    const total = [...lexical.values()].reduce((a, b) => a + b.score, 0);
    return scored
      .map((e) => {
        const kw = keywords.get(e.dag_id);
        const alias = aliases.find((a) => a.dag_id === e.dag_id);
        const asked = explicitCheck && isCheckDag(e.dag_id) ? weights.explicitCheck : 0;
        const score = (kw?.score ?? 0) + bm25Points(lexical.get(e.dag_id), total) + (alias ? weights.alias : 0) + asked;
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
  ): SettledParams & { unsafe: boolean; hostless?: string } {
    // Values come from what was asked for, not from what was negated or tried and failed.
    const extracted = extractValues(parsed, { values: parse(positiveText(frame)), action: frame.action, frame });
    // A host the request names for a workflow that cannot be pinned to one is refused, never dropped.
    const host = extracted.values.host;
    if (typeof host === "string" && !entry.params.host) return { params: {}, warnings: [], input: [], unsafe: false, hostless: host };
    // The general extractor has already vetted names; an alias only adds what it implies (action).
    const implied = Object.fromEntries(Object.entries(aliases.find((a) => a.dag_id === entry.dag_id)?.params ?? {}).filter(([k]) => k === "action"));
    return { ...settleParams(entry, extracted, implied, { anyImage: GENERIC_DAGS.has(entry.dag_id) }), unsafe: extracted.shell };
  }

  /** The route for a chosen DAG: params settled, status from what must still be asked. */
  function finish(entry: RouterCatalogEntry, parsed: ParsedIntent, ctx: RequestContext, confidence: number, candidates: RouteCandidate[], reason: string): RouteResult {
    const { params, warnings, input, unsafe, hostless } = paramsFromParsed(parsed, entry, ctx.aliases, ctx.frame);
    if (unsafe) return refusal("unsafe", "I only run catalogue workflows with validated parameters, never shell text: a value in the request carries shell syntax.", []);
    if (hostless !== undefined) {
      const takers = catalog.filter((e) => e.params.host).map((e) => e.dag_id);
      const which = takers.length ? `only ${takers.join(", ")} can` : "no workflow of the catalogue can";
      return refusal(
        "out_of_scope",
        `${entry.dag_id} cannot be pinned to host '${hostless}': ${which} be pinned to a host; ask again without "on host ${hostless}" to let placement choose.`,
        candidates,
        confidence,
      );
    }
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
    byId,
    dagIds: new Set(byId.keys()) as ReadonlySet<string>,
    thresholds,
    weights,
    parse,
    rank,
    paramsFromParsed,
    finish,
    positiveText,
    checkDag: catalog.find((e) => isCheckDag(e.dag_id)),
    generic: catalog.find((e) => GENERIC_DAGS.has(e.dag_id)),
    offersOperation: (dagId: string, verb: string) => analyse(verb).every((w) => ownWords.get(dagId)?.has(w)),
  };
}
