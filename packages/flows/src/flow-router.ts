import { createIntentRouter, modelSettingsFromConfig, type ModelConfigInput, type RouteResult, type RouterCatalogEntry } from "@svc/assistant";
import type { Logger } from "@svc/logger";

/** How the orchestrator routes intents: the configured mode, and a router per catalogue. */
export interface FlowRouter {
  /** `llm` when a model is configured (hosted key, or local model with its URL). */
  readonly mode: "offline" | "llm";
  /** The model name in use, or null offline. */
  readonly model: string | null;
  route(intent: string, catalog: readonly RouterCatalogEntry[]): Promise<RouteResult>;
}

/** Routing from the model config: the LLM router when configured (it falls back offline by itself), else offline. */
export function createFlowRouter(model: ModelConfigInput, logger: Logger): FlowRouter {
  const settings = modelSettingsFromConfig(model);
  // Building a router (indexes over the catalogue) costs more than routing one intent: the last one
  // is kept while the catalogue holds the same entries (loadCatalogue reuses them per definition).
  let last: { catalog: readonly RouterCatalogEntry[]; router: ReturnType<typeof createIntentRouter> } | undefined;
  const routerFor = (catalog: readonly RouterCatalogEntry[]) => {
    if (!last || last.catalog.length !== catalog.length || last.catalog.some((e, i) => e !== catalog[i])) {
      const kept = [...catalog];
      last = { catalog: kept, router: createIntentRouter({ catalog: kept, model: settings, logger }) };
    }
    return last.router;
  };
  return {
    mode: settings ? "llm" : "offline",
    model: settings?.model ?? null,
    route: (intent, catalog) => routerFor(catalog).route(intent),
  };
}

/** The fallback reason when an LLM router answered offline, else null. */
export function fallbackReasonOf(router: Pick<FlowRouter, "mode">, result: RouteResult): string | null {
  if (router.mode !== "llm" || result.mode !== "offline") return null;
  const w = result.warnings.find((x) => x.startsWith("model unavailable"));
  // The LLM router skips the model for refused requests: that is not a fallback.
  if (!w) return null;
  return /^model unavailable \((.*)\)/.exec(w)?.[1] ?? w;
}
