import { sql } from "kysely";
import type { Db } from "@svc/db";
import { UsageError } from "../errors";
import type { Command } from "./types";

/** Flow statuses after which nothing happens to a flow any more. */
const FINAL_FLOW_STATUSES = ["completed", "failed", "cancelled", "rejected"];
const UNITS: Record<string, number> = { m: 60, h: 3600, d: 86_400, w: 7 * 86_400 };

/** `30d`, `12h`, `90m`, `2w` → seconds. */
export function parseAge(s: string): number {
  const m = /^(\d{1,6})([mhdw])$/.exec(s.trim());
  if (!m || Number(m[1]) === 0) throw new UsageError(`--older-than must be a positive age such as 30d, 12h, 90m or 2w (got '${s}')`);
  return Number(m[1]) * UNITS[m[2]!]!;
}

/** What a clean removes (or would remove), per table. */
export interface CleanCounts {
  dag_run: number;
  task_instance: number;
  task_log: number;
  flow: number;
  idempotency_key: number;
}

/**
 * Remove finished runs (with their task instances and logs) and final flows whose last change is
 * older than `olderThanS`; running, queued and waiting ones are never touched. Dry run counts only.
 */
export async function cleanDatabase(db: Db, olderThanS: number, dryRun: boolean): Promise<CleanCounts> {
  return db.transaction().execute(async (trx) => {
    const cutoff = sql<Date>`now() - make_interval(secs => ${olderThanS})`;
    const runs = trx
      .selectFrom("dag_run")
      .select(["dag_id", "run_id"])
      .where("state", "in", ["success", "failed"])
      .where(sql<boolean>`coalesce(end_date, updated_at) < ${cutoff}`);
    const count = async (table: "task_instance" | "task_log") =>
      Number(
        (
          await trx
            .selectFrom(table)
            .select((e) => e.fn.countAll<number>().as("n"))
            .where(sql<boolean>`(dag_id, run_id) in (${runs})`)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const counts: CleanCounts = {
      dag_run: Number(
        (
          await trx
            .selectFrom(runs.as("r"))
            .select((e) => e.fn.countAll<number>().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      ),
      task_instance: await count("task_instance"),
      task_log: await count("task_log"),
      idempotency_key: Number(
        (
          await trx
            .selectFrom("idempotency_key")
            .select((e) => e.fn.countAll<number>().as("n"))
            .where(sql<boolean>`created_at < ${cutoff}`)
            .executeTakeFirstOrThrow()
        ).n,
      ),
      flow: Number(
        (
          await trx
            .selectFrom("flow")
            .select((e) => e.fn.countAll<number>().as("n"))
            .where("status", "in", FINAL_FLOW_STATUSES)
            .where(sql<boolean>`updated_at < ${cutoff}`)
            .executeTakeFirstOrThrow()
        ).n,
      ),
    };
    if (!dryRun) {
      // Log lines and task instances first: the log table keeps no foreign key (a hot insert path).
      for (const table of ["task_log", "task_instance"] as const)
        await trx
          .deleteFrom(table)
          .where(sql<boolean>`(dag_id, run_id) in (${runs})`)
          .execute();
      await trx
        .deleteFrom("dag_run")
        .where("state", "in", ["success", "failed"])
        .where(sql<boolean>`coalesce(end_date, updated_at) < ${cutoff}`)
        .execute();
      await trx
        .deleteFrom("flow")
        .where("status", "in", FINAL_FLOW_STATUSES)
        .where(sql<boolean>`updated_at < ${cutoff}`)
        .execute();
      await trx
        .deleteFrom("idempotency_key")
        .where(sql<boolean>`created_at < ${cutoff}`)
        .execute();
    }
    return counts;
  });
}

/** `db clean --older-than 30d [--dry-run]` (Airflow's `airflow db clean`). */
export const dbCleanCommand: Command = {
  group: "db",
  name: "clean",
  summary: "Delete finished runs (with their task instances and logs), final flows and idempotency keys older than an age",
  args: [],
  options: [
    { name: "older-than", type: "string", value: "AGE", description: "Age such as 30d, 12h, 90m or 2w (required)" },
    { name: "dry-run", type: "boolean", description: "Only count what would be deleted" },
  ],
  async run(ctx, { values }) {
    if (typeof values["older-than"] !== "string") throw new UsageError("--older-than is required, e.g. --older-than 30d");
    const dry = values["dry-run"] === true;
    const counts = await cleanDatabase(ctx.db, parseAge(values["older-than"]), dry);
    const verb = dry ? "Would delete" : "Deleted";
    for (const [table, n] of Object.entries(counts)) ctx.io.stdout(`${verb} ${n} ${table} row(s)\n`);
    return 0;
  },
};
