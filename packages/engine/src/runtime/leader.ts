import type pg from "pg";
import { createClient } from "@svc/db";

const LOCK_KEY = 0x5_3_5_6_4_3; // "SVC" scheduler leadership

export interface Leadership {
  isLeader(): boolean;
  stop(): Promise<void>;
}

/**
 * Leader election with a session-level Postgres advisory lock held on a dedicated connection:
 * exactly one scheduler runs the DAG processor, reconciliation and cron sync. If the leader dies
 * its connection closes and the lock frees; followers retry every `retryMs`.
 */
export function startLeadership(databaseUrl: string, retryMs: number, onChange: (leader: boolean) => void, onError: (e: unknown) => void): Leadership {
  let client: pg.Client | null = null;
  let leader = false;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;

  const attempt = async () => {
    if (stopped) return;
    try {
      if (!client) {
        client = createClient(databaseUrl, { applicationName: "svc-scheduler-leader" });
        client.on("error", (e) => {
          onError(e);
          drop();
        });
        await client.connect();
      }
      const r = await client.query<{ ok: boolean }>("select pg_try_advisory_lock($1) as ok", [LOCK_KEY]);
      if (r.rows[0]?.ok && !leader) {
        leader = true;
        onChange(true);
      }
    } catch (e) {
      onError(e);
      drop();
    }
    if (!stopped && !leader) timer = setTimeout(() => void attempt(), retryMs);
  };
  const drop = () => {
    const c = client;
    client = null;
    c?.end().catch(() => undefined);
    if (leader) {
      leader = false;
      onChange(false);
      if (!stopped) timer = setTimeout(() => void attempt(), retryMs);
    }
  };
  void attempt();
  return {
    isLeader: () => leader,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      const c = client;
      client = null;
      leader = false;
      await c?.end().catch(() => undefined);
    },
  };
}
