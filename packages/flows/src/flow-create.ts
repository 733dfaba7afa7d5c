import type { Db, FlowRow } from "@svc/db";
import { microBatch } from "@svc/engine";
import { CREATE_FLOW_AUDITED_SQL, CREATE_FLOWS_AUDITED_SQL, flowRows } from "./flow-sql";

/** A new flow's insert values in CREATE_FLOW_SQL's order ($1..$8), and the actor of its audit event. */
export interface NewFlowValues {
  values: readonly unknown[];
  actor: string;
}

type Settled = { row: FlowRow } | { error: unknown };

/** Each flow alone: a flow another one cannot insert (a bad byte in its text) fails by itself. */
async function oneByOne(db: Db, items: NewFlowValues[]): Promise<Settled[]> {
  return Promise.all(
    items.map(async (it): Promise<Settled> => {
      try {
        const row = (await flowRows(db, CREATE_FLOW_AUDITED_SQL, [...it.values, it.actor]))[0];
        return row ? { row } : { error: new Error("flow insert returned no row") };
      } catch (error) {
        return { error };
      }
    }),
  );
}

/** The flows in one statement, matched back to their callers by flow id. */
async function together(db: Db, items: NewFlowValues[]): Promise<Settled[]> {
  const column = (i: number) => items.map((it) => it.values[i]);
  const rows = await flowRows(db, CREATE_FLOWS_AUDITED_SQL, [...Array.from({ length: 8 }, (_, i) => column(i)), items.map((it) => it.actor)]);
  const byId = new Map(rows.map((r) => [r.flow_id, r]));
  return items.map((it) => {
    const row = byId.get(String(it.values[0]));
    return row ? { row } : { error: new Error("flow insert returned no row") };
  });
}

/**
 * The audited insert of new flows with group commit: intents that arrive while the previous insert
 * is still in Postgres go together in the next one (one statement, one round trip, one commit for
 * all), and an idle API sends each on the next tick. Should a statement of several fail, each flow
 * of it is tried alone, so only a flow that cannot be inserted fails.
 */
export function groupedFlowCreate(db: Db): (item: NewFlowValues) => Promise<FlowRow> {
  const send = microBatch(
    async (items: NewFlowValues[]): Promise<Settled[]> => {
      if (items.length === 1) return oneByOne(db, items);
      return together(db, items).catch(() => oneByOne(db, items));
    },
    { max: 128, maxInFlight: 2, eagerAt: 8 },
  );
  return async (item) => {
    const out = await send(item);
    if ("error" in out) throw out.error;
    return out.row;
  };
}
