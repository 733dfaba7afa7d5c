import type { Db } from "@svc/db";
import { waitFor } from "@svc/testing";
import { autocannon, type CannonResult } from "./load";

/** The accepted intents' load, and how long the orchestrator then took to plan what it left behind. */
export interface AsyncIntents {
  load: CannonResult;
  /** Flows left pending or planning when the load ended. */
  backlog: number;
  /** Seconds from the load's end until no flow was pending or planning. */
  drainS: number;
}

const unplanned = async (db: Db): Promise<number> =>
  Number((await db.selectFrom("flow").select(db.fn.countAll().as("n")).where("status", "in", ["pending", "planning"]).executeTakeFirst())?.n ?? 0);

/**
 * The intents sent with `Prefer: respond-async` (answered 202 once the flow and its job are
 * written), `connections` for `seconds`, then the wait until the orchestrator has planned every one.
 */
export async function measureAsyncIntents(o: { db: Db; url: string; body: unknown; connections: number; seconds: number }): Promise<AsyncIntents> {
  const load = await autocannon(o.url, o.body, o.connections, o.seconds, { prefer: "respond-async" });
  const backlog = await unplanned(o.db);
  const t0 = performance.now();
  await waitFor(async () => (await unplanned(o.db)) === 0, { timeoutMs: 600_000, intervalMs: 250, what: "the accepted intents planned" });
  return { load, backlog, drainS: (performance.now() - t0) / 1000 };
}
