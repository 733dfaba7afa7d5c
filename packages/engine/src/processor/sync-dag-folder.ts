import { sql } from "kysely";
import path from "node:path";
import { fileToken, formatProblems, parseDagFolder, type DagDefinition, type DagFileResult, type OperatorCatalog } from "@svc/dags";
import type { Db } from "@svc/db";
import type { Logger } from "@svc/logger";
import type { Notifier } from "../notifier";

/** What syncDagFolder needs; everything comes in here (no process-level state). */
export interface SyncDagFolderDeps {
  db: Db;
  dagsDir: string;
  catalog: OperatorCatalog;
  /** Platform settings for `{{ settings.<key> }}` in param defaults. */
  settings?: Record<string, string>;
  logger?: Logger;
  notifier?: Notifier;
  /** Clock for last_parsed_at / import_error.timestamp (tests). */
  now?: () => Date;
}

/** What one sync changed, by dag_id; `errors` lists every file that failed to load. */
export interface SyncReport {
  added: string[];
  updated: string[];
  unchanged: string[];
  deactivated: string[];
  errors: { filename: string; message: string }[];
}

// Distinct from the scheduler's leader lock: concurrent syncs (leader + `reserialize`) serialise here.
const SYNC_LOCK = "svc:dag-processor-sync";

type Loaded = Extract<DagFileResult, { ok: true }>;

/**
 * Parse the DAG folder and make the `dag` and `import_error` tables match it, in one transaction.
 * New DAGs start paused; existing ones keep their pause state. A DAG whose file now fails to load
 * keeps its last good definition (and its file gets an import_error row); a DAG whose file is gone
 * becomes inactive. Throws, changing nothing, when the folder cannot be read.
 */
export async function syncDagFolder(deps: SyncDagFolderDeps): Promise<SyncReport> {
  const dagsDir = path.resolve(deps.dagsDir);
  const results = await parseDagFolder(dagsDir, { catalog: deps.catalog, settings: deps.settings });
  const loaded = results.filter((r): r is Loaded => r.ok);
  const errors = results.flatMap((r) => (r.ok ? [] : [{ filename: r.fileloc, message: formatProblems(r.problems) }]));
  const failedFiles = new Set(errors.map((e) => e.filename));
  const now = deps.now?.() ?? new Date();
  const report: SyncReport = { added: [], updated: [], unchanged: [], deactivated: [], errors };
  const changed: string[] = [];

  await deps.db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext(${SYNC_LOCK}))`.execute(trx);
    const rows = await trx.selectFrom("dag").select(["dag_id", "fileloc", "file_token", "hash", "schedule", "is_active"]).execute();
    const existing = new Map(rows.map((r) => [r.dag_id, r]));

    for (const { fileloc, dag, hash } of loaded) {
      const token = fileToken(fileloc, dagsDir);
      const row = existing.get(dag.dag_id);
      if (row && row.hash === hash && row.fileloc === fileloc && row.file_token === token && row.is_active) {
        report.unchanged.push(dag.dag_id);
        continue;
      }
      const values = dagColumns(dag, hash, fileloc, token, now);
      if (!row) {
        await trx
          .insertInto("dag")
          .values({ ...values, is_paused: true })
          .execute();
        report.added.push(dag.dag_id);
        changed.push(dag.dag_id);
      } else {
        await trx.updateTable("dag").set(values).where("dag_id", "=", dag.dag_id).execute();
        report.updated.push(dag.dag_id);
        if (row.hash !== hash || row.schedule !== dag.schedule || !row.is_active) changed.push(dag.dag_id);
      }
    }
    if (report.unchanged.length) {
      await trx.updateTable("dag").set({ last_parsed_at: now }).where("dag_id", "in", report.unchanged).execute();
    }

    const loadedIds = new Set(loaded.map((r) => r.dag.dag_id));
    // A broken file keeps its DAGs (last good definition); only DAGs defined nowhere go inactive.
    report.deactivated = rows.filter((r) => r.is_active && !loadedIds.has(r.dag_id) && !failedFiles.has(r.fileloc)).map((r) => r.dag_id);
    if (report.deactivated.length) {
      await trx.updateTable("dag").set({ is_active: false }).where("dag_id", "in", report.deactivated).execute();
      changed.push(...report.deactivated);
    }

    for (const e of errors) {
      await trx
        .insertInto("import_error")
        .values({ filename: e.filename, stacktrace: e.message, timestamp: now })
        .onConflict((oc) =>
          oc.column("filename").doUpdateSet({
            stacktrace: (eb) => eb.ref("excluded.stacktrace"),
            // Keep the first-seen time while the problem is unchanged.
            timestamp: sql<Date>`case when import_error.stacktrace = excluded.stacktrace then import_error.timestamp else excluded.timestamp end`,
          }),
        )
        .execute();
    }
    let stale = trx.deleteFrom("import_error");
    if (failedFiles.size) stale = stale.where("filename", "not in", [...failedFiles]);
    await stale.execute();
  });

  for (const dagId of changed) {
    try {
      await deps.notifier?.dagChanged(dagId, { schedule: true });
    } catch (e) {
      deps.logger?.warn({ dagId, err: String(e) }, "dag change notification failed");
    }
  }
  const counts = { added: report.added.length, updated: report.updated.length, unchanged: report.unchanged.length, deactivated: report.deactivated.length, errors: errors.length };
  deps.logger?.info({ dagsDir, ...counts }, "dag folder synced");
  for (const e of errors) deps.logger?.warn({ filename: e.filename, problems: e.message.split("\n").length }, "dag file has import errors");
  return report;
}

function dagColumns(dag: DagDefinition, hash: string, fileloc: string, token: string, now: Date) {
  return {
    dag_id: dag.dag_id,
    fileloc,
    file_token: token,
    is_active: true,
    description: dag.description,
    tags: JSON.stringify(dag.tags),
    owners: JSON.stringify(dag.owners),
    schedule: dag.schedule,
    max_active_runs: dag.max_active_runs,
    params: JSON.stringify(dag.params),
    definition: JSON.stringify(dag),
    hash,
    last_parsed_at: now,
  };
}
