import type { RouteRefusal, RouteResult, RouterCatalogEntry } from "../types";
import type { SettledParams } from "../params/settle-params";
import { ALIASES, createAliasMatcher, type AliasDefinition } from "./aliases";
import { createChatFilter } from "./chat-clauses";
import { readHostQuestion } from "./host-questions";
import { readFrame } from "./intent-frame";
import { detectVerbs } from "./keyword-scorer";
import { verbsFromFrame } from "./frame-decision";
import { createIntentParser } from "./parse-intent";
import { routeLab } from "./lab-route";
import { routeUsers } from "./user-route";
import { routeLabMember } from "./lab-member-route";
import { answerExpiry, answerReadOnly, refuseByFrame, refuseQuestion, routeByScore } from "./route-stages";
import { createRouterParts, refusal, type RequestContext } from "./router-parts";
import { DEFAULT_THRESHOLDS, DEFAULT_WEIGHTS, type RouterThresholds, type RouterWeights } from "./route-weights";
import { checkSafety } from "./safety-gate";
import { withoutCaReference } from "../params/ca-reference";
import { readCloudTarget, retiredProviderMessage } from "../params/cloud-target";

export { DEFAULT_THRESHOLDS, DEFAULT_WEIGHTS };
export type { RouterThresholds, RouterWeights };

const HOST_ROOM_REPLY =
  "That asks how much room the hypervisor hosts have (or where a VM would fit), not for a change; nothing was started. The answer comes from the host inventory's last probes (POST /orchestrator/intent and POST /chat give it), as does `svc-hosts list`.";

/** Options for createOfflineRouter. */
export interface OfflineRouterOptions {
  aliases?: readonly AliasDefinition[];
  thresholds?: Partial<RouterThresholds>;
  /** For sweeps of the weights (see route-weights.ts); the defaults are what ships. */
  weights?: Partial<RouterWeights>;
}

/** The model-free router: safety gate, aliases, keywords and BM25, thresholds, params. */
export interface OfflineRouter {
  readonly catalog: readonly RouterCatalogEntry[];
  route(intent: string): RouteResult;
  /** Params the request states for one DAG, validated by its schema, and what must be asked. */
  paramsFor(intent: string, dagId: string): SettledParams & { unsafe: boolean };
}

/** Builds the offline router for one catalogue. */
export function createOfflineRouter(catalog: readonly RouterCatalogEntry[], options: OfflineRouterOptions = {}): OfflineRouter {
  const parse = createIntentParser(catalog);
  const matchAliases = createAliasMatcher(options.aliases ?? ALIASES);
  const requestOf = createChatFilter(catalog);
  const parts = createRouterParts(catalog, parse, { ...DEFAULT_THRESHOLDS, ...options.thresholds }, { ...DEFAULT_WEIGHTS, ...options.weights });

  /** What every stage reads: the request without chat around it, its frame, aliases and verbs. */
  function readRequest(intent: string, gate: RouteRefusal | null): RequestContext {
    const request = requestOf(intent);
    const parsed = parse(request);
    const frame = readFrame(request);
    const aliases = matchAliases(parsed.text).filter((a) => !a.params.action || a.params.action === frame.action);
    // Scored without what is negated and without a CA the request only uses ("TLS from our CA ca01").
    const positiveText = withoutCaReference(frame.excluded.size > 0 ? parts.positiveText(frame) : request);
    const positive = positiveText !== request ? parse(positiveText) : parsed;
    // Off-topic words are judged on the request, not on the chat dropped around it.
    const scope = request === intent ? gate : checkSafety(request);
    return { intent, request, parsed, frame, aliases, verbs: verbsFromFrame(frame, detectVerbs(parsed.terms)), positive, scope };
  }

  return {
    catalog,
    route(intent) {
      const gate = checkSafety(intent);
      // Unsafe text anywhere in the message is refused, chat or not.
      if (gate && gate.kind !== "out_of_scope") return refusal(gate.kind, gate.message, []);
      const hosts = readHostQuestion(intent);
      if (hosts) return refusal("out_of_scope", HOST_ROOM_REPLY, [], 0, { about_hosts: true, ...(hosts.fit ? { about_fit: hosts.fit } : {}) });
      const target = readCloudTarget(intent);
      const retired = retiredProviderMessage(target);
      if (retired) return refusal("out_of_scope", retired, []);
      const ctx = readRequest(intent, gate);
      const r =
        refuseByFrame(parts, ctx) ??
        answerExpiry(parts, ctx) ??
        answerReadOnly(parts, ctx) ??
        refuseQuestion(parts, ctx) ??
        routeUsers(parts, ctx) ??
        routeLabMember(parts, ctx) ??
        routeLab(parts, ctx) ??
        routeByScore(parts, ctx);
      return r.dag_id && target ? { ...r, target } : r;
    },
    paramsFor(intent, dagId) {
      const entry = parts.byId.get(dagId);
      if (!entry) return { params: {}, warnings: [`unknown workflow ${dagId}`], input: [], unsafe: false };
      const parsed = parse(intent);
      return parts.paramsFromParsed(parsed, entry, matchAliases(parsed.text));
    },
  };
}
