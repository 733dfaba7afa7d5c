import { sql, type Kysely } from "kysely";

/**
 * The hypervisor host a try of a host-scoped task was routed to (several-host installs): set by
 * the worker that routed it, before the try moves to that host's queue (`tasks@<host>`), so
 * reconciliation re-enqueues it there and the task's later tries stay on the host that holds its
 * effects. Null for tasks that act on no host and for every task of a single-host install.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table task_instance add column host text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table task_instance drop column host`.execute(db);
}
