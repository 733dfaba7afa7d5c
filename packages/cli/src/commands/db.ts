import { inspect } from "node:util";
import { ensureDatabase } from "@svc/db";
import { migrateDatabase } from "@svc/engine-sql";
import { CliError } from "../errors";
import { dbCleanCommand } from "./db-clean";
import type { Command } from "./types";

/** `db migrate`: create the database when missing, apply pending migrations, list what was applied. */
export const dbCommands: Command[] = [
  {
    group: "db",
    name: "migrate",
    summary: "Create the metadata database if needed and apply pending migrations",
    args: [],
    options: [],
    async run(ctx) {
      const created = await ensureDatabase(ctx.config.databaseUrl);
      if (created) ctx.io.stdout("Created the metadata database\n");
      const { error, results, functions } = await migrateDatabase(ctx.db);
      for (const r of results) ctx.io.stdout(`${r.status === "Success" ? "Applied" : r.status === "Error" ? "Failed" : "Skipped"} migration ${r.migrationName}\n`);
      const applied = functions.filter((f) => f.status === "Applied");
      for (const f of applied) ctx.io.stdout(`Applied function ${f.name}\n`);
      if (error) throw new CliError(`migration failed: ${error instanceof Error ? error.message : inspect(error)}`);
      if (!results.length && !applied.length) ctx.io.stdout("Database is up to date\n");
      return 0;
    },
  },
  dbCleanCommand,
];
