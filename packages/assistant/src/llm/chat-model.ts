import { ChatOpenAI } from "@langchain/openai";

/** How to reach an OpenAI-compatible chat model (hosted, or local through its URL). */
export interface ModelSettings {
  model: string;
  apiKey?: string;
  /** OpenAI-compatible base URL, including /v1. */
  baseUrl?: string;
  timeoutMs: number;
}

/** The model part of the service config (same shape as SvcConfig["model"]). */
export interface ModelConfigInput {
  apiKey?: string;
  name: string;
  baseUrl?: string;
  timeoutMs: number;
  useLocalModel: boolean;
  localModelUrl?: string;
}

/** Model settings when a hosted key is set, or a local model is enabled with its URL; null means offline only. */
export function modelSettingsFromConfig(cfg: ModelConfigInput): ModelSettings | null {
  if (cfg.apiKey) return { model: cfg.name, apiKey: cfg.apiKey, baseUrl: cfg.baseUrl, timeoutMs: cfg.timeoutMs };
  if (cfg.useLocalModel && cfg.localModelUrl) return { model: cfg.name, baseUrl: cfg.localModelUrl, timeoutMs: cfg.timeoutMs };
  return null;
}

/** A LangChain chat model for the settings: no retries (the caller falls back instead), temperature 0. */
export function createChatModel(settings: ModelSettings): ChatOpenAI {
  return new ChatOpenAI({
    model: settings.model,
    // Local OpenAI-compatible servers ignore the key, but the client insists on one.
    apiKey: settings.apiKey ?? "local-model",
    configuration: settings.baseUrl ? { baseURL: settings.baseUrl } : undefined,
    timeout: settings.timeoutMs,
    maxRetries: 0,
    temperature: 0,
    useResponsesApi: false,
  });
}
