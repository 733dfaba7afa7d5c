import { sql, type Kysely } from "kysely";
import { hopsFunction } from "./015-hops-in-try-ops";
import { CLOSED_READS_FUNCTION, CLOSED_RUN_CHECKS } from "./017-closed-run-reads";

/**
 * A commit or a finish of svc_try_ops may name one of its hops as `keep`: the worker slot that ran
 * the upstream runs that downstream next. The round that lands the success then takes the kept hop
 * `none → running` for the request's worker (try number + 1, started now, this host and pid, as a
 * claim would), unless the task is routed to a hypervisor host, and returns it as a 'Q' row with
 * the claim's columns (max_tries, hostname, dag_hash, conf, logical_date). The other hops are
 * queued and come back as 'q' rows, as before. A claimed hop costs one round trip instead of two
 * (the round that lands its upstream, then its own claim). The rest of the function is 017's.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop function svc_try_ops`.execute(db);
  await sql.raw(KEPT_HOPS_FUNCTION).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop function svc_try_ops`.execute(db);
  await sql.raw(CLOSED_READS_FUNCTION).execute(db);
}

const KEPT_HOPS_FUNCTION = hopsFunction(true, CLOSED_RUN_CHECKS);
