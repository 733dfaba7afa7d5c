import { createOfflineRouter, describeCatalogue, type RouteResult, type RouterCatalogEntry } from "@svc/assistant";
import type { FlowRow } from "@svc/db";
import { loadCatalogue, type CatalogueDag } from "../catalogue";
import { fallbackReasonOf } from "../flow-router";
import type { FlowPatch } from "../flow-store";
import { patchFlow, routerNotes, type PipelineDeps } from "./deps";
import { resolveCloudTarget, type TargetOutcome } from "./cloud-target";
import { hostRoomAnswer } from "./host-answer";

/** Example requests to suggest when nothing matched: the first example of each DAG. */
function suggestions(entries: readonly RouterCatalogEntry[]): string[] {
  const examples = entries.flatMap((e) => (e.examples[0] ? [`"${e.examples[0]}"`] : [])).slice(0, 6);
  return examples.length ? [`Try a request such as ${examples.join(", ")}.`] : [];
}

async function routeSafely(deps: PipelineDeps, intent: string, entries: RouterCatalogEntry[]): Promise<RouteResult> {
  try {
    return await deps.router.route(intent, entries);
  } catch (e) {
    // The LLM router falls back by itself; this guards against anything it did not foresee.
    deps.logger.warn({ err: String(e) }, "router failed; routing offline");
    const r = createOfflineRouter(entries).route(intent);
    return { ...r, warnings: [...r.warnings, "model unavailable (router error); used the offline router"] };
  }
}

/**
 * Phase 1: route the intent over the engine's catalogue. Records the router's evidence in
 * `flow.router`; no match or a refusal rejects the flow with what the catalogue can do. A route
 * that goes on to validation is returned `unsaved`: the caller writes it with the next phase.
 */
export async function discover(deps: PipelineDeps, flow: FlowRow): Promise<{ flow: FlowRow; catalogue: readonly CatalogueDag[]; unsaved?: FlowPatch }> {
  let catalogue = await loadCatalogue(deps.engine);
  let entries = catalogue.map((c) => c.entry);
  let result = await routeSafely(deps, flow.intent, entries);
  if (!result.dag_id && deps.catalogueReady) {
    // Nothing matched: before refusing, make sure the workflows were loaded (a stack just started).
    if (!(await deps.catalogueReady())) return { flow: await rejectNotLoaded(deps, flow), catalogue };
    const now = await loadCatalogue(deps.engine);
    if (now !== catalogue) {
      catalogue = now;
      entries = catalogue.map((c) => c.entry);
      result = await routeSafely(deps, flow.intent, entries);
    }
  }
  const router = routerEvidence(deps, result);
  deps.logger.info({ flowId: flow.flow_id, dagId: result.dag_id, mode: result.mode, fallback: router.fallback_reason }, "intent routed");
  if (!result.dag_id) return { flow: await rejectUnmatched(deps, flow, result, router, entries), catalogue };
  // Params the client typed answer a question before it is asked; validation judges them.
  const explicit = flow.requested_params ?? {};
  const target = await targetOf(deps, flow, result, entries);
  if (target && "refuse" in target) return { flow: await rejectTarget(deps, flow, router, target.refuse), catalogue };
  const input = [...(result.status === "needs_input" ? (result.input ?? []) : []), ...(target && "ask" in target ? [target.ask] : [])].filter(
    (i) => explicit[i.field] === undefined,
  );
  // Explicit params answered every question: the route is ready as far as routing goes.
  if (router.status === "needs_input" && input.length === 0) router.status = "ready";
  if (input.length) return { flow: await askForInput(deps, flow, result, { ...router, status: "needs_input" }, input), catalogue };
  const pinned = target && "host" in target ? target : null;
  const routed = {
    dag_id: result.dag_id,
    // The extracted params (with the host a cloud target or a host's name chose); validation merges the explicit ones over them.
    params: pinned ? { ...result.params, host: pinned.host } : result.params,
    router,
    phases_completed: ["dag_discovery" as const],
    warnings: result.warnings.filter((w) => !w.startsWith("model unavailable")),
    next_steps: routerNotes(router),
    summary: `Matched ${result.dag_id}: ${result.reason}${pinned ? `; ${pinned.note}` : ""}`,
  };
  // Not written here: validation, next, saves it with its own outcome in one statement (a crash
  // before that leaves the flow in planning without the phase, and the job routes it again).
  return { flow: { ...flow, ...routed }, catalogue, unsaved: routed };
}

/** Where the request puts its VMs, matched against the inventory (null: it names no target, or its host decides). */
async function targetOf(deps: PipelineDeps, flow: FlowRow, result: RouteResult, entries: readonly RouterCatalogEntry[]): Promise<TargetOutcome | null> {
  const entry = entries.find((e) => e.dag_id === result.dag_id);
  const host = flow.requested_params?.host ?? result.params.host;
  let records = null;
  try {
    records = deps.hosts ? await deps.hosts.list() : null;
  } catch (e) {
    deps.logger.warn({ err: String(e) }, "host inventory unavailable for a cloud target");
  }
  return resolveCloudTarget(flow.intent, { dagId: result.dag_id!, declaresHost: entry?.params.host !== undefined, host, records });
}

/** The DAG folder was not processed within the wait: say so, instead of listing an empty catalogue. */
function rejectNotLoaded(deps: PipelineDeps, flow: FlowRow): Promise<FlowRow> {
  const message =
    "The workflows are not loaded yet: no scheduler has processed the DAG folder (it is starting, or not running); nothing was started. Send the request again once GET /api/v1/health shows dag_processor healthy.";
  return patchFlow(deps.store, flow, { status: "rejected", summary: message, error_message: message, phases_skipped: ["dag_validation", "dag_execution"] }, ["planning"]);
}

/** A target that cannot be honoured rejects the flow: nothing runs, and nothing goes to another host instead. */
function rejectTarget(deps: PipelineDeps, flow: FlowRow, router: RouterEvidence, message: string): Promise<FlowRow> {
  return patchFlow(
    deps.store,
    flow,
    {
      status: "rejected",
      router: { ...router, status: "rejected" },
      summary: message,
      error_message: message,
      phases_skipped: ["dag_validation", "dag_execution"],
      next_steps: routerNotes(router),
    },
    ["planning"],
  );
}

type RouterEvidence = ReturnType<typeof routerEvidence>;
type RouteInput = NonNullable<RouteResult["input"]>;

/** What `flow.router` records of a routing: mode, fallback, candidates, and the route status contract. */
function routerEvidence(deps: PipelineDeps, result: RouteResult) {
  return {
    mode: result.mode,
    configured_mode: deps.router.mode,
    model: deps.router.mode === "llm" ? deps.router.model : null,
    fallback_reason: fallbackReasonOf(deps.router, result),
    confidence: result.confidence,
    candidates: result.candidates,
    reason: result.reason,
    refused: result.refused ?? null,
    warnings: result.warnings,
    // The route status contract: ready | needs_input | rejected, with what to ask.
    status: result.dag_id ? (result.status ?? "ready") : "rejected",
    question: result.question ?? null,
    input: result.input ?? [],
  };
}

/** No DAG matched, or the router refused: reject with what the catalogue can do (or, for a host question, the hosts' room). */
async function rejectUnmatched(deps: PipelineDeps, flow: FlowRow, result: RouteResult, router: RouterEvidence, entries: RouterCatalogEntry[]): Promise<FlowRow> {
  const refusal = result.refused?.message ?? result.reason;
  // A question about the room on the hosts is answered here, from the inventory; nothing runs.
  const rooms = result.refused?.about_hosts ? await hostRoomAnswer(deps.hosts, deps.logger, result.refused.about_fit) : null;
  const summary = rooms ? `${refusal}\n${rooms}` : refusal.includes("I can:") ? refusal : `${refusal} ${describeCatalogue(entries)}`;
  return patchFlow(
    deps.store,
    flow,
    {
      status: "rejected",
      router,
      summary,
      error_message: refusal,
      phases_skipped: ["dag_validation", "dag_execution"],
      next_steps: [...suggestions(entries), ...routerNotes(router)],
    },
    ["planning"],
  );
}

/** The DAG is clear but a value is missing or broke a rule: ask, run nothing, never substitute a default. */
function askForInput(deps: PipelineDeps, flow: FlowRow, result: RouteResult, router: RouterEvidence, input: RouteInput): Promise<FlowRow> {
  const rules = input.map((i) => (i.given !== undefined ? `${i.rule} (given: ${JSON.stringify(i.given)})` : i.rule)).join("; ");
  const fields = [...new Set(input.map((i) => i.field))];
  return patchFlow(
    deps.store,
    flow,
    {
      status: "needs_input",
      dag_id: result.dag_id,
      params: result.params,
      router,
      missing_params: fields,
      phases_completed: ["dag_discovery"],
      warnings: result.warnings.filter((w) => !w.startsWith("model unavailable")),
      summary: `${result.dag_id} needs input for ${fields.join(", ")}: ${rules}. ${input[0]!.question}`,
      next_steps: [
        `POST /orchestrator/flows/${flow.flow_id}/answer with {"answer": "..."} or {"params": {${input.map((i) => `"${i.field}": "..."`).join(", ")}}}, or /cancel to drop it.`,
        ...routerNotes(router),
      ],
    },
    ["planning"],
  );
}
