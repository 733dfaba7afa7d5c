import type pg from "pg";
import { createClient } from "./connection";

/**
 * A LISTEN on one channel, for readers that keep what Postgres says in memory: `generation()`
 * moves on with every notification and every time the feed could have missed one (each connect,
 * each loss of the connection), so a value read under one generation is current while it holds.
 * While `listening()` is false nothing may be kept: read Postgres.
 */
export interface NotificationFeed {
  generation(): number;
  listening(): boolean;
  close(): Promise<void>;
}

export interface NotificationFeedOptions {
  /** Wait before connecting again after the connection was lost or refused (default 1 s). */
  retryMs?: number;
  applicationName?: string;
  /** Told when the connection is lost or refused (it is retried), once until it listens again. */
  onError?: (e: unknown) => void;
  /** Told when it listens again after an error. */
  onBack?: () => void;
}

/** LISTEN `channel` (a plain identifier) on its own connection, reconnecting until closed. */
export function createNotificationFeed(url: string, channel: string, o: NotificationFeedOptions = {}): NotificationFeed {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
  let generation = 0;
  let listening = false;
  let closed = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let failing = false;

  const lost = (c: pg.Client, e?: unknown) => {
    if (client !== c) return;
    client = undefined;
    listening = false;
    generation++;
    if (e !== undefined && !failing) {
      failing = true;
      o.onError?.(e);
    }
    c.end().catch(() => undefined);
    if (!closed) retry = setTimeout(connect, o.retryMs ?? 1000);
  };
  const connect = () => {
    retry = undefined;
    const c = createClient(url, { applicationName: o.applicationName ?? "svc-listen" });
    client = c;
    c.on("notification", (n) => n.channel === channel && generation++);
    c.on("error", (e) => lost(c, e));
    c.on("end", () => lost(c));
    c.connect()
      .then(() => c.query(`listen ${channel}`))
      .then(() => {
        if (client !== c) return;
        // Whatever changed before the LISTEN took effect was not heard: start a new generation.
        generation++;
        listening = true;
        if (failing) {
          failing = false;
          o.onBack?.();
        }
      })
      .catch((e: unknown) => lost(c, e));
  };
  connect();

  return {
    generation: () => generation,
    listening: () => listening,
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      const c = client;
      client = undefined;
      listening = false;
      await c?.end().catch(() => undefined);
    },
  };
}
