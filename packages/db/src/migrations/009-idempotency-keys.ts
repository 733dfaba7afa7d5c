import { sql, type Kysely } from "kysely";

/**
 * Idempotency-Key of a client's create request: the first request with a key claims it (ref
 * still null), then records what it made; a retry with the same key finds that instead of
 * making a second one. `scope` separates endpoints and callers.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("idempotency_key")
    .addColumn("scope", "text", (c) => c.notNull())
    .addColumn("key", "text", (c) => c.notNull())
    .addColumn("ref", "text")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint("idempotency_key_pk", ["scope", "key"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("idempotency_key").execute();
}
