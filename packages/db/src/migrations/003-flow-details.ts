import { sql, type Kysely } from "kysely";

/** Flow details the orchestrator persists between phases: the params as requested, and warnings. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("flow")
    // The client's explicit params, kept apart from the resolved ones so a resumed flow re-applies them.
    .addColumn("requested_params", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("warnings", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .execute();
  await db.schema.createIndex("flow_status_idx").on("flow").columns(["status", "updated_at"]).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("flow_status_idx").ifExists().execute();
  await db.schema.alterTable("flow").dropColumn("warnings").dropColumn("requested_params").execute();
}
