import { answerFromDocs, createChatModel, createDocsIndex, dagDocs, modelSettingsFromConfig, type DocsIndex, type ModelConfigInput, type RouterCatalogEntry } from "@svc/assistant";
import type { EngineApi } from "@svc/engine";
import { loadCatalogue } from "@svc/flows";
import type { HostList, HostRoom } from "@svc/hosts";
import type { Logger } from "@svc/logger";
import { answerFromInventory } from "./chat-hosts";

/** A chat answer as the API returns it. */
export interface ChatAnswer {
  answer: string;
  sources: { title: string; path: string; score: number }[];
  mode: "extractive" | "llm" | "inventory";
  /** mode inventory: each host's room, from its last probe. */
  hosts?: HostRoom[];
}

/** Answers questions from the docs folder and the DAG descriptions. */
export interface ChatService {
  answer(message: string): Promise<ChatAnswer>;
}

export interface ChatServiceOptions {
  docsDir: string;
  engine: Pick<EngineApi, "listDagDefinitions">;
  model: ModelConfigInput;
  logger: Logger;
  /** The host inventory (cached read): questions about the room on the hosts are answered from it. */
  hosts?: HostList;
  /** The index is rebuilt when older than this (DAGs and docs change). */
  refreshMs?: number;
}

/**
 * Retrieval over SVC_DOCS_DIR plus every DAG's description; extractive with no model (never a
 * "not initialized" answer), grounded by a model when one is configured. Questions about the room
 * on the hosts are answered from the host inventory instead (mode inventory, no model).
 */
export function createChatService(o: ChatServiceOptions): ChatService {
  const settings = modelSettingsFromConfig(o.model);
  const model = settings ? createChatModel(settings) : undefined;
  type Built = { at: number; index: DocsIndex; catalog: RouterCatalogEntry[] };
  let built: Built | null = null;
  let building: Promise<Built> | null = null;

  const build = async (): Promise<Built> => {
    let catalogue: Awaited<ReturnType<typeof loadCatalogue>> = [];
    try {
      catalogue = await loadCatalogue(o.engine);
    } catch (e) {
      // Docs still answer when the metadata database is down; DAG descriptions join on the next rebuild.
      o.logger.warn({ err: String(e) }, "chat: DAG catalogue unavailable; indexing docs only");
    }
    const index = await createDocsIndex({ docsDir: o.docsDir, extraDocs: dagDocs(catalogue.map((c) => c.definition)) });
    return { at: Date.now(), index, catalog: catalogue.map((c) => c.entry) };
  };

  const current = async (): Promise<Built> => {
    if (built && Date.now() - built.at < (o.refreshMs ?? 60_000)) return built;
    building ??= build().finally(() => {
      building = null;
    });
    const fresh = await building;
    built = fresh;
    return fresh;
  };

  return {
    async answer(message) {
      const inventory = await answerFromInventory(message, o.hosts);
      if (inventory) return inventory;
      const { index, catalog } = await current();
      const r = await answerFromDocs(message, index, { model, catalog, timeoutMs: settings?.timeoutMs, logger: o.logger });
      return { answer: r.answer, sources: r.sources, mode: r.mode };
    },
  };
}
