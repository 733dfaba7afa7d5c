import { sql } from "kysely";
import type { Db } from "@svc/db";
import type { Logger } from "@svc/logger";

/** A table is looked at once it holds this many live rows: below it, every plan reads a page or two. */
export const GROWN_MIN_ROWS = 64;
/**
 * The tables whose kept plans depend on their size, and the columns their lookups filter on: the
 * runs (read by key from foreign-key checks, named statements and the try functions) and their
 * task instances. Only those columns are sampled (the size, which every plan uses, comes with
 * any of them): with the runs' definitions and the tries' outputs, whole-table ANALYZEs of
 * 1,000 runs and 10,000 task instances took 22 and 93 ms. Other tables are read by their primary
 * key alone (an ANALYZE of the flows, wide JSON rows, cost 45 ms and changed no plan).
 */
export const WATCHED_TABLES: Record<string, string[]> = {
  dag_run: ["dag_id", "run_id", "state", "logical_date"],
  task_instance: ["dag_id", "run_id", "task_id", "state"],
};
/** Tables past this size are left to autovacuum alone: their plans no longer change with each doubling. */
export const GROWN_MAX_ROWS = 1_000_000;

/**
 * The watched tables of this schema that have at least doubled since their statistics were taken (or were
 * never analyzed) and hold at least GROWN_MIN_ROWS live rows, by the cumulative statistics (which
 * lag their writes by up to a second).
 */
export async function grownTables(db: Db): Promise<string[]> {
  const { rows } = await sql<{ relname: string }>`
    select s.relname
    from pg_stat_user_tables s join pg_class c on c.oid = s.relid
    where s.schemaname = current_schema() and s.relname = any(${Object.keys(WATCHED_TABLES)})
      and s.n_live_tup >= ${GROWN_MIN_ROWS}
      and c.reltuples < ${GROWN_MAX_ROWS}
      and s.n_live_tup >= 2 * greatest(c.reltuples, 0)
    order by s.relname`.execute(db);
  return rows.map((r) => r.relname);
}

/** ANALYZE the tables that outgrew their statistics; a table another analyze holds is skipped (next time). Returns those analyzed. */
export async function analyzeGrownTables(db: Db): Promise<string[]> {
  const grown = await grownTables(db);
  for (const t of grown) await sql`analyze (skip_locked) ${sql.table(t)} (${sql.join(WATCHED_TABLES[t]!.map((c) => sql.ref(c)))})`.execute(db);
  return grown;
}

/**
 * Keep the statistics of young tables in step with their growth (the scheduler leader runs it).
 *
 * Why: Postgres keeps a plan per connection for foreign-key checks and named statements, chosen
 * with the statistics of the moment. On a new database `dag_run` is empty, and the lookup of a run
 * by its key (`dag_id`, `run_id`) costs the same through the `(dag_id, logical_date)` index as
 * through the key's own, so the planner may take the former. That plan is kept while the table
 * grows, until an ANALYZE invalidates it: autovacuum's comes after a minute or more, and meanwhile
 * each task instance inserted scanned every run of its DAG for its foreign-key check (the run's
 * trigger cost 1 ms at 30 runs, rising with each). Analyzing each time a young table doubles
 * costs a few ANALYZEs of small tables (about log₂ of the rows), and each replans the cached plans
 * once. Autovacuum still does the rest.
 */
export function startTableStats(db: Db, log: Logger, intervalMs = 1000): () => void {
  let busy = false;
  let warned = false;
  const tick = async () => {
    if (busy) return;
    busy = true;
    try {
      const analyzed = await analyzeGrownTables(db);
      if (analyzed.length) log.debug({ analyzed }, "tables that outgrew their statistics analyzed");
      warned = false;
    } catch (e) {
      // Not fatal: autovacuum analyzes them later. Said once per outage, not every second.
      if (!warned) log.warn({ err: String(e) }, "could not analyze tables that outgrew their statistics; autovacuum will (plans may be slow until then)");
      warned = true;
    } finally {
      busy = false;
    }
  };
  const t = setInterval(() => void tick(), intervalMs);
  t.unref();
  return () => clearInterval(t);
}
