import { sql, type Kysely } from "kysely";

/** Engine tables: DAGs, import errors, runs, task instances, logs. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("dag")
    .addColumn("dag_id", "text", (c) => c.primaryKey())
    .addColumn("fileloc", "text", (c) => c.notNull())
    .addColumn("file_token", "text", (c) => c.notNull())
    .addColumn("is_paused", "boolean", (c) => c.notNull().defaultTo(true))
    .addColumn("is_active", "boolean", (c) => c.notNull().defaultTo(true))
    .addColumn("description", "text")
    .addColumn("tags", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn("owners", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn("schedule", "text")
    .addColumn("max_active_runs", "integer", (c) => c.notNull().defaultTo(16))
    .addColumn("params", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("definition", "jsonb", (c) => c.notNull())
    .addColumn("hash", "text", (c) => c.notNull())
    .addColumn("last_parsed_at", "timestamptz", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable("import_error")
    .addColumn("import_error_id", "serial", (c) => c.primaryKey())
    .addColumn("filename", "text", (c) => c.notNull().unique())
    .addColumn("stacktrace", "text", (c) => c.notNull())
    .addColumn("timestamp", "timestamptz", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("dag_run")
    .addColumn("id", "bigserial", (c) => c.primaryKey())
    .addColumn("dag_id", "text", (c) => c.notNull())
    .addColumn("run_id", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull().check(sql`state in ('queued','running','success','failed')`))
    .addColumn("run_type", "text", (c) => c.notNull())
    .addColumn("conf", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("definition", "jsonb", (c) => c.notNull())
    .addColumn("dag_hash", "text", (c) => c.notNull())
    .addColumn("logical_date", "timestamptz", (c) => c.notNull())
    .addColumn("data_interval_start", "timestamptz")
    .addColumn("data_interval_end", "timestamptz")
    .addColumn("queued_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("start_date", "timestamptz")
    .addColumn("end_date", "timestamptz")
    .addColumn("last_scheduling_decision", "timestamptz")
    .addColumn("note", "text")
    .addColumn("external_trigger", "boolean", (c) => c.notNull().defaultTo(true))
    .addColumn("version", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("evaluated_version", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint("dag_run_dag_id_run_id_key", ["dag_id", "run_id"])
    .execute();
  await db.schema.createIndex("dag_run_state_idx").on("dag_run").columns(["state", "dag_id"]).execute();
  await db.schema.createIndex("dag_run_dag_logical_idx").on("dag_run").columns(["dag_id", "logical_date"]).execute();

  await db.schema
    .createTable("task_instance")
    .addColumn("dag_id", "text", (c) => c.notNull())
    .addColumn("run_id", "text", (c) => c.notNull())
    .addColumn("task_id", "text", (c) => c.notNull())
    .addColumn("map_index", "integer", (c) => c.notNull().defaultTo(-1))
    .addColumn("state", "text", (c) => c.check(sql`state is null or state in ('scheduled','queued','running','success','failed','up_for_retry','upstream_failed','skipped')`))
    .addColumn("try_number", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("max_tries", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("operator", "text", (c) => c.notNull())
    .addColumn("queued_at", "timestamptz")
    .addColumn("start_date", "timestamptz")
    .addColumn("end_date", "timestamptz")
    .addColumn("duration", "double precision")
    .addColumn("hostname", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("worker_id", "text")
    .addColumn("pid", "integer")
    .addColumn("next_retry_at", "timestamptz")
    .addColumn("timeout_at", "timestamptz")
    .addColumn("zombie_count", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("output", "jsonb")
    .addColumn("error", "text")
    .addColumn("note", "text")
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint("task_instance_pkey", ["dag_id", "run_id", "task_id", "map_index"])
    .addForeignKeyConstraint("task_instance_run_fk", ["dag_id", "run_id"], "dag_run", ["dag_id", "run_id"], (fk) => fk.onDelete("cascade"))
    .execute();
  await db.schema.createIndex("task_instance_state_idx").on("task_instance").columns(["state"]).execute();

  await db.schema
    .createTable("task_log")
    .addColumn("id", "bigserial", (c) => c.primaryKey())
    .addColumn("dag_id", "text", (c) => c.notNull())
    .addColumn("run_id", "text", (c) => c.notNull())
    .addColumn("task_id", "text", (c) => c.notNull())
    .addColumn("try_number", "integer", (c) => c.notNull())
    .addColumn("stream", "text", (c) => c.notNull())
    .addColumn("line", "text", (c) => c.notNull())
    .addColumn("ts", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addForeignKeyConstraint("task_log_run_fk", ["dag_id", "run_id"], "dag_run", ["dag_id", "run_id"], (fk) => fk.onDelete("cascade"))
    .execute();
  await db.schema.createIndex("task_log_try_idx").on("task_log").columns(["dag_id", "run_id", "task_id", "try_number", "id"]).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ["task_log", "task_instance", "dag_run", "import_error", "dag"]) await db.schema.dropTable(t).ifExists().execute();
}
