import type { Db } from "@svc/db";
import { createHostInventory } from "../inventory";
import type { HostRecord } from "../types";

/** The inventory's rows, read at most once per `ttlMs` (probes come every 10 s; a plan needs no fresher). */
export interface HostList {
  list(): Promise<HostRecord[]>;
}

/**
 * A cached read of the inventory: callers within `ttlMs` of the last read share it (and share a
 * read in flight), so an intent does not pay a query. A failed read is not cached.
 */
export function createCachedHostList(db: Db, ttlMs = 5_000, clock: () => number = Date.now): HostList {
  const inv = createHostInventory(db);
  let last: { at: number; rows: HostRecord[] } | undefined;
  let reading: Promise<HostRecord[]> | undefined;
  return {
    list() {
      if (last && clock() - last.at < ttlMs) return Promise.resolve(last.rows);
      reading ??= inv
        .list()
        .then((rows) => ((last = { at: clock(), rows }), rows))
        .finally(() => (reading = undefined));
      return reading;
    },
  };
}
