import os from "node:os";
import { sql } from "kysely";
import type { Db } from "@svc/db";

export type Component = "scheduler" | "worker" | "web-ui" | "assistant-api" | "orchestrator";

/** Upsert this process's heartbeat row; /health and zombie detection read it. */
export async function beat(db: Db, component: Component, instanceId: string, startedAt: Date, info: Record<string, unknown> = {}): Promise<void> {
  await db
    .insertInto("component_heartbeat")
    .values({ component, instance_id: instanceId, hostname: os.hostname(), pid: process.pid, started_at: startedAt, last_seen: sql<Date>`now()`, info: JSON.stringify(info) })
    .onConflict((oc) => oc.columns(["component", "instance_id"]).doUpdateSet({ last_seen: sql<Date>`now()`, info: JSON.stringify(info) }))
    .execute();
}

/** Beat every `intervalMs` until stopped; failures are reported, never thrown. */
export function startHeartbeat(
  db: Db,
  component: Component,
  instanceId: string,
  intervalMs: number,
  onError: (e: unknown) => void,
  info: () => Record<string, unknown> = () => ({}),
): { stop(): Promise<void>; beatNow(): Promise<void> } {
  const startedAt = new Date();
  let stopped = false;
  let inFlight: Promise<void> = Promise.resolve();
  const tick = () => {
    inFlight = beat(db, component, instanceId, startedAt, info()).catch(onError);
  };
  tick();
  const t = setInterval(tick, intervalMs);
  return {
    /** Beat at once (a change in `info` readers should see before the next interval). */
    beatNow() {
      if (!stopped) tick();
      return inFlight;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(t);
      await inFlight;
      await db.deleteFrom("component_heartbeat").where("component", "=", component).where("instance_id", "=", instanceId).execute().catch(onError);
    },
  };
}
