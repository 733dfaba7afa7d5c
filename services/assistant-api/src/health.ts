import { sql } from "kysely";
import type { SvcConfig } from "@svc/config";
import type { Db } from "@svc/db";
import type { EngineApi } from "@svc/engine";
import type { Health } from "./schemas";

/** A component counts as alive when it beat within this window. */
export const LIVENESS_WINDOW_S = 30;
const PROBE_TIMEOUT_MS = 2000;

export interface HealthDeps {
  db: Db;
  redis: { ping(): Promise<string> };
  engine: Pick<EngineApi, "health">;
  config: Pick<SvcConfig, "model">;
  version: string;
}

function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let t: NodeJS.Timeout;
  return Promise.race([p, new Promise<never>((_, rej) => (t = setTimeout(() => rej(new Error(`no answer within ${ms} ms`)), ms)))]).finally(() => clearTimeout(t));
}

const probe = async (p: () => Promise<unknown>): Promise<string | null> => {
  try {
    await within(p(), PROBE_TIMEOUT_MS);
    return null;
  } catch (e) {
    return e instanceof Error ? e.message.slice(0, 200) : "unreachable";
  }
};

/** Live instances per component, on the database clock (the clock the heartbeat writers use). */
export async function liveCounts(db: Db): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom("component_heartbeat")
    .select(["component", sql<number>`count(*)::int`.as("n")])
    .where("last_seen", ">=", sql<Date>`now() - make_interval(secs => ${LIVENESS_WINDOW_S})`)
    .groupBy("component")
    .execute();
  return Object.fromEntries(rows.map((r) => [r.component, r.n]));
}

/**
 * Health of the assistant and what it depends on. unhealthy (503) when the database or Redis is
 * down; degraded when the scheduler, workers or orchestrator are not seen.
 */
export async function checkHealth(d: HealthDeps): Promise<Health> {
  const [dbError, redisError] = await Promise.all([probe(() => sql`select 1`.execute(d.db)), probe(() => d.redis.ping())]);
  let counts: Record<string, number> = {};
  let latest: string | null = null;
  let schedulerOk = false;
  if (!dbError) {
    const [c, h] = await Promise.all([within(liveCounts(d.db), PROBE_TIMEOUT_MS).catch(() => ({})), within(d.engine.health(), PROBE_TIMEOUT_MS).catch(() => null)]);
    counts = c;
    schedulerOk = h?.scheduler.status === "healthy";
    latest = h?.scheduler.latest_scheduler_heartbeat ?? null;
  }
  const workers = counts.worker ?? 0;
  const orchestrators = counts.orchestrator ?? 0;
  const m = d.config.model;
  const provider = m.apiKey ? "openai_compatible" : m.useLocalModel && m.localModelUrl ? "local_model" : null;
  const components: Health["components"] = {
    database: dbError ? { status: "unhealthy", detail: dbError } : { status: "healthy" },
    redis: redisError ? { status: "unhealthy", detail: redisError } : { status: "healthy" },
    scheduler: {
      status: schedulerOk ? "healthy" : "unhealthy",
      latest_heartbeat: latest,
      ...(schedulerOk ? {} : { detail: `no scheduler heartbeat within ${LIVENESS_WINDOW_S} s` }),
    },
    workers: { status: workers > 0 ? "healthy" : "unhealthy", count: workers },
    orchestrator: { status: orchestrators > 0 ? "healthy" : "unhealthy", count: orchestrators },
    model_provider: { configured: provider !== null, mode: provider ? "llm" : "offline", provider },
  };
  const status = dbError || redisError ? "unhealthy" : schedulerOk && workers > 0 && orchestrators > 0 ? "healthy" : "degraded";
  return { status, components, version: d.version, timestamp: new Date().toISOString() };
}
