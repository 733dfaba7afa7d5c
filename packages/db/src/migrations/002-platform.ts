import { sql, type Kysely } from "kysely";

/** Platform tables: orchestration flows, component heartbeats, audit trail. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("flow")
    .addColumn("flow_id", "text", (c) => c.primaryKey())
    .addColumn("execution_id", "text", (c) => c.notNull().unique())
    .addColumn("intent", "text", (c) => c.notNull())
    .addColumn("params", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("dag_id", "text")
    .addColumn("run_id", "text")
    .addColumn("phases_completed", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn("phases_skipped", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn("auto_approve", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("auto_execute", "boolean", (c) => c.notNull().defaultTo(true))
    .addColumn("summary", "text")
    .addColumn("next_steps", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn("missing_params", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn("error_message", "text")
    .addColumn("router", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("approval", "jsonb")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex("flow_dag_idx").on("flow").columns(["dag_id", "created_at"]).execute();

  await db.schema
    .createTable("component_heartbeat")
    .addColumn("component", "text", (c) => c.notNull())
    .addColumn("instance_id", "text", (c) => c.notNull())
    .addColumn("hostname", "text", (c) => c.notNull())
    .addColumn("pid", "integer", (c) => c.notNull())
    .addColumn("started_at", "timestamptz", (c) => c.notNull())
    .addColumn("last_seen", "timestamptz", (c) => c.notNull())
    .addColumn("info", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addPrimaryKeyConstraint("component_heartbeat_pkey", ["component", "instance_id"])
    .execute();

  await db.schema
    .createTable("audit_event")
    .addColumn("id", "bigserial", (c) => c.primaryKey())
    .addColumn("at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("actor", "text", (c) => c.notNull())
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("target", "text", (c) => c.notNull())
    .addColumn("detail", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ["audit_event", "component_heartbeat", "flow"]) await db.schema.dropTable(t).ifExists().execute();
}
