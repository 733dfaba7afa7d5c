import { modelSettingsFromConfig } from "@svc/assistant";
import type { SvcConfig } from "@svc/config";
import type { Db } from "@svc/db";
import type { EngineApi } from "@svc/engine";
import { createFlowStore, createServiceEngine, type FlowStore } from "@svc/flows";
import { createCachedHostList } from "@svc/hosts";
import { createOpenStreams, type OpenStreams } from "@svc/http";
import type { Logger } from "@svc/logger";
import { createQueues, pingRedis } from "@svc/queue";
import pkg from "../package.json";
import { createChatService, type ChatService } from "./chat";
import { createIntentClient, type IntentClient } from "./intent-client";

/** Everything the assistant app uses; passed in, so tests can point pieces elsewhere. */
export interface AssistantDeps {
  config: SvcConfig;
  db: Db;
  /** For /health: answers PONG while Redis is up; `ready`: whether the connection is up now (no round trip). */
  redis: { ping(): Promise<string>; ready?(): boolean };
  engine: EngineApi;
  store: FlowStore;
  intents: IntentClient;
  chat: ChatService;
  logger: Logger;
  version: string;
  /** How long a request waits for the orchestrator before answering 202 with the flow as it stands. */
  intentWaitMs: number;
  /** SSE: how often Postgres is polled, how often a comment keeps the connection alive, and the process's open streams (capped, closed on shutdown). */
  sse: { pollMs: number; heartbeatMs: number; streams: OpenStreams };
  /** The routing mode the orchestrator uses with this config (same model settings). */
  router: { mode: "offline" | "llm"; model: string | null };
}

/** The deps plus a close() that releases what createAssistantDeps opened (not the db). */
export interface AssistantResources extends AssistantDeps {
  close(): Promise<void>;
}

export interface AssistantDepsOptions {
  config: SvcConfig;
  logger: Logger;
  db: Db;
  intentWaitMs?: number;
  sse?: Partial<AssistantDeps["sse"]>;
}

/** Open the Redis-side resources (queues, queue events) and build the services the app needs. */
export function createAssistantDeps(o: AssistantDepsOptions): AssistantResources {
  const { config, logger, db } = o;
  const queues = createQueues({ url: config.redisUrl, prefix: config.redisPrefix });
  const engine = createServiceEngine({ db, queues, config, logger });
  const intents = createIntentClient({ queue: queues.intents, redisUrl: config.redisUrl, prefix: config.redisPrefix, logger });
  const model = modelSettingsFromConfig(config.model);
  return {
    config,
    db,
    redis: { ping: () => pingRedis(queues.connection), ready: () => queues.connection.status === "ready" },
    engine,
    store: createFlowStore(db),
    intents,
    chat: createChatService({ docsDir: config.docsDir, engine, model: config.model, logger, hosts: createCachedHostList(db) }),
    logger,
    version: pkg.version,
    intentWaitMs: o.intentWaitMs ?? Math.max(10_000, config.model.timeoutMs + 2000),
    sse: { pollMs: o.sse?.pollMs ?? 500, heartbeatMs: o.sse?.heartbeatMs ?? 15_000, streams: o.sse?.streams ?? createOpenStreams(config.limits.maxOpenStreams) },
    router: { mode: model ? "llm" : "offline", model: model?.model ?? null },
    async close() {
      await intents.close();
      await queues.close();
    },
  };
}
