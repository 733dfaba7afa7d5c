import type { RouteResult } from "../types";
import { describeCatalogue } from "../catalog/catalog-entry";
import { extractValues } from "../params/extract-params";
import { bareObjectName, frameRefusal } from "./frame-decision";
import { mentionRefusal } from "./mentions";
import { runQuestion } from "./run-questions";
import { isExpiryQuestion } from "./expiry-questions";
import { offersInner } from "./user-route";
import { isCheckDag, refusal, round, type Ranked, type RequestContext, type RouterParts } from "./router-parts";
import type { ParsedIntent } from "./parse-intent";

/**
 * The stages of route(), in order; each returns a route or null to pass the request on:
 * refuseByFrame → answerExpiry → answerReadOnly → refuseQuestion → routeUsers (user-route.ts) →
 * routeLabMember (lab-member-route.ts) → routeLab (lab-route.ts) → routeByScore.
 */

/** Refusals whatever the nouns say: taken back, inside a service, a foreign product, a mention, a question about a run. */
export function refuseByFrame(parts: RouterParts, ctx: RequestContext): RouteResult | null {
  const { catalog } = parts;
  const why = frameRefusal(ctx.frame, ctx.positive.terms, (inner) => offersInner(parts, inner));
  if (why) return refusal("out_of_scope", `${why} ${describeCatalogue(catalog)}`, []);
  const run = runQuestion(ctx.frame, parts.dagIds);
  if (run) {
    const best = parts.rank(ctx.parsed, [], { ...ctx.verbs, create: false, delete: false, check: false })[0];
    const named = catalog.find((e) => ctx.parsed.tokens.includes(e.dag_id));
    const dagId = named?.dag_id ?? (best && best.score >= parts.thresholds.minScore && !isCheckDag(best.dag_id) ? best.dag_id : null);
    const where = dagId
      ? `Its runs are at POST /orchestrator/observe?dag_id=${dagId} (status, failed tasks and their log lines) and \`dags list-runs -d ${dagId}\`; the run's page in the web UI shows every task's log.`
      : "Runs are at POST /orchestrator/observe?dag_id=<workflow> (status, failed tasks and their log lines) and `dags list-runs -d <workflow>`; the run's page in the web UI shows every task's log.";
    return refusal("out_of_scope", `That asks about a run that already happened (${run}), not for a new one; nothing was started. ${where}`, [], 0, {
      about_run: { dag_id: dagId },
    });
  }
  const mention = mentionRefusal(ctx.frame);
  if (mention) return refusal("out_of_scope", `${mention} ${describeCatalogue(catalog)}`, []);
  return null;
}

/** "Any TLS certs going stale soon?": the read-only check's certificate report answers it, never a new CA. */
export function answerExpiry(parts: RouterParts, ctx: RequestContext): RouteResult | null {
  const check = parts.checkDag;
  if (!check || !isExpiryQuestion(ctx.request, ctx.frame)) return null;
  if (ctx.scope) return refusal(ctx.scope.kind, ctx.scope.message, []);
  return parts.finish(check, ctx.parsed, ctx, 1, [{ dag_id: check.dag_id, score: 1 }], "a question about certificate expiry: answered by the read-only check's certificate report");
}

/** A question about the state of things, or a request to list, is answered by a read-only check, never by a change. */
export function answerReadOnly(parts: RouterParts, ctx: RequestContext): RouteResult | null {
  if (!ctx.frame.stateQuestion && ctx.frame.action !== "list") return null;
  if (ctx.scope) return refusal(ctx.scope.kind, ctx.scope.message, []);
  const check = parts.checkDag;
  if (!check) return refusal("out_of_scope", `No read-only workflow can answer that. ${describeCatalogue(parts.catalog)}`, []);
  return parts.finish(check, ctx.parsed, ctx, 1, [{ dag_id: check.dag_id, score: 1 }], "a question about state: answered by a read-only check");
}

/** A question about doing something ("should I create a vm?") runs nothing. */
export function refuseQuestion(parts: RouterParts, ctx: RequestContext): RouteResult | null {
  const { frame, verbs } = ctx;
  if (!((frame.question && (verbs.create || verbs.delete)) || (frame.asks && !verbs.check))) return null;
  return refusal(
    "out_of_scope",
    `That reads as a question, not a request to change anything; nothing was run. Say what to do ("create …", "delete …") to run a workflow. ${describeCatalogue(parts.catalog)}`,
    [],
  );
}

/** True when the request states an image or a size: what only a machine has. */
function statesMachineValues(parsed: ParsedIntent): boolean {
  const v = extractValues(parsed).values;
  return ["image", "cpus", "memory_mb", "disk_gb"].some((k) => v[k] !== undefined);
}

/** The DAGs scored on the request's positive part (or all of it when that scores too little). */
function rankRequest(parts: RouterParts, ctx: RequestContext): Ranked[] {
  // Nouns of negated parts ("don't remove freeipa, install a CA instead") are not what is asked for.
  const explicitCheck = ctx.frame.action === "check";
  const onPositive = parts.rank(ctx.positive, ctx.aliases, ctx.verbs, explicitCheck);
  return (onPositive[0]?.score ?? 0) >= parts.thresholds.minScore ? onPositive : parts.rank(ctx.parsed, ctx.aliases, ctx.verbs, explicitCheck);
}

/** Routes that need no clear winner: a delete of a bare name, a create stating only machine values. */
function fallbackRoute(parts: RouterParts, ctx: RequestContext, best: Ranked | undefined, candidates: RouteResult["candidates"]): RouteResult | null {
  const { generic, thresholds, weights } = parts;
  if (!generic || (best && best.score >= thresholds.minScore)) return null;
  // "decommission web-07": a delete of a bare name is a delete of the VM of that name.
  const bare = ctx.verbs.delete ? bareObjectName(ctx.frame) : null;
  if (bare) return parts.finish(generic, parts.parse(`${ctx.request} vm ${bare}`), ctx, weights.fallbackConfidence, candidates, `delete of "${bare}": the generic VM workflow`);
  // "spin up ubuntu 24.04 with 2c/4g": a create that states only machine values (image, sizes) is a VM.
  if (ctx.verbs.create && statesMachineValues(ctx.positive)) {
    return parts.finish(
      generic,
      ctx.parsed,
      ctx,
      weights.fallbackConfidence,
      candidates,
      "a create stating only machine values (image, CPUs, memory, disk): the generic VM workflow",
    );
  }
  return null;
}

/** The best-scoring DAG, when it clears the thresholds and the request asks for something it does. */
export function routeByScore(parts: RouterParts, ctx: RequestContext): RouteResult {
  const { catalog, thresholds, weights } = parts;
  const { verbs } = ctx;
  const ranked = rankRequest(parts, ctx);
  const candidates = ranked
    .filter((r) => r.score > 0)
    .slice(0, 3)
    .map(({ dag_id, score }) => ({ dag_id, score }));
  const [best, second] = ranked;
  const fallback = fallbackRoute(parts, ctx, best, candidates);
  if (fallback) return fallback;
  const cannot = (verb: string) => refusal("out_of_scope", `No workflow in the catalogue can ${verb} that. ${describeCatalogue(catalog)}`, candidates);
  const weak = !best || best.score < thresholds.minScore;
  if (verbs.unsupported && !verbs.create && !verbs.delete && weak) return cannot(verbs.unsupported);
  if (!best || best.score <= 0) return refusal("out_of_scope", `Nothing in the request matches a workflow. ${describeCatalogue(catalog)}`, candidates);
  // "upgrade openshift" or "stop the vm" share a noun with a deploy workflow but ask for something else.
  const unsupported = verbs.unsupported && !parts.offersOperation(best.dag_id, verbs.unsupported);
  if (unsupported && !verbs.create && !verbs.delete && !(verbs.check && isCheckDag(best.dag_id))) return cannot(verbs.unsupported!);
  if (ctx.scope && !(best.score >= weights.offTopicOverride && (verbs.create || verbs.delete || verbs.check))) return refusal(ctx.scope.kind, ctx.scope.message, []);
  const margin = (best.score - (second?.score ?? 0)) / best.score;
  const confidence = round(Math.max(0, margin) * Math.min(1, best.score / (thresholds.minScore * weights.confidenceScale)));
  if (best.score < thresholds.minScore) {
    return refusal("low_confidence", `Not enough evidence for any workflow (best ${best.dag_id} at ${best.score}). ${describeCatalogue(catalog)}`, candidates, confidence);
  }
  if (margin < thresholds.minMargin) {
    return refusal("low_confidence", `The request fits ${best.dag_id} and ${second?.dag_id} about equally; please say which one you mean.`, candidates, confidence);
  }
  const reason = `matched ${best.evidence.slice(0, 5).join(", ") || "catalogue text"} (score ${best.score}, margin ${round(margin)})`;
  return parts.finish(parts.byId.get(best.dag_id)!, ctx.parsed, ctx, confidence, candidates, reason);
}
