import { sql, type Kysely } from "kysely";

/**
 * The placement preview of a flow's plan (several-host installs): where each VM the run would
 * create would go by the hosts' last probes, and each host's verdict. Null when the plan creates
 * no VM or the install has only the local host.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table flow add column placement jsonb`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table flow drop column placement`.execute(db);
}
