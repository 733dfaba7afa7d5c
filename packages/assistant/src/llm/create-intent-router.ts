import type { Logger } from "@svc/logger";
import { createOfflineRouter } from "../router/offline-router";
import type { IntentRouter, RouterCatalogEntry } from "../types";
import type { ModelSettings } from "./chat-model";
import { createLlmRouter } from "./llm-router";

/** Options for createIntentRouter. */
export interface IntentRouterOptions {
  catalog: readonly RouterCatalogEntry[];
  /** null or absent: offline routing only (see modelSettingsFromConfig). */
  model?: ModelSettings | null;
  logger?: Logger;
}

/** The model-assisted router when model settings are given, the offline router otherwise. */
export function createIntentRouter(options: IntentRouterOptions): IntentRouter & { mode: "offline" | "llm" } {
  if (options.model) {
    const llm = createLlmRouter({ ...options.model, catalog: options.catalog, logger: options.logger });
    return { mode: "llm", route: (intent) => llm.route(intent) };
  }
  const offline = createOfflineRouter(options.catalog);
  return { mode: "offline", route: async (intent) => offline.route(intent) };
}
