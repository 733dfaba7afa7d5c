import { readFile } from "node:fs/promises";
import { sql } from "kysely";
import { resolveFileToken, type DagDefinition } from "@svc/dags";
import { runPrepared, type DagRow, type Db } from "@svc/db";
import { BadRequestError, DagNotFoundError, NotFoundError } from "@svc/errors";
import { cachedDefinition, rememberDefinition } from "../runtime/definition-cache";
import type { ApiContext } from "./deps";
import { resolveOrder, resolvePage, type PageQuery } from "./paging";
import type { ApiDag, ApiDagCollection, ApiDagDetail, ApiTaskCollection } from "./schemas";
import { DAG_LIST_COLUMNS, dagDetailToApi, dagToApi, taskToApi, type DagListRow } from "./serialize";

export interface ListDagsQuery extends PageQuery {
  tags?: string[];
  /** Substring match on dag_id, case-insensitive (SQL ILIKE wildcards pass through, as in Airflow). */
  dag_id_pattern?: string;
  paused?: boolean;
  /** Default true: only DAGs whose file is still in the DAG folder. */
  only_active?: boolean;
}

/** A DAG with its stored definition in svc's own shape (params with examples and required list, tasks as written). */
export interface DagDefinitionEntry {
  dag_id: string;
  is_paused: boolean;
  is_active: boolean;
  has_import_errors: boolean;
  definition: DagDefinition;
}

export interface ListDagDefinitionsOptions {
  /** Default true: only DAGs whose file is still in the DAG folder. */
  onlyActive?: boolean;
}

export interface PausePatternOptions {
  onlyActive?: boolean;
  tags?: string[];
  limit?: number;
  offset?: number;
}

const DAG_ORDER = { dag_id: "dag_id", is_paused: "is_paused", fileloc: "fileloc", last_parsed_time: "last_parsed_at", description: "description" } as const;

/** Filenames (of the given files) that have an import error right now. */
export async function filesWithImportErrors(db: Db, filelocs: string[]): Promise<Set<string>> {
  if (!filelocs.length) return new Set();
  const rows = await db
    .selectFrom("import_error")
    .select("filename")
    .where("filename", "in", [...new Set(filelocs)])
    .execute();
  return new Set(rows.map((r) => r.filename));
}

/** The `dag` row or DagNotFoundError. */
export async function requireDag(db: Db, dagId: string): Promise<DagRow> {
  const row = await db.selectFrom("dag").selectAll().where("dag_id", "=", dagId).executeTakeFirst();
  if (!row) throw new DagNotFoundError(dagId);
  return row;
}

function filtered(db: Db, q: { tags?: string[]; pattern?: string; paused?: boolean; onlyActive?: boolean }) {
  let query = db.selectFrom("dag");
  if (q.onlyActive !== false) query = query.where("is_active", "=", true);
  if (q.paused !== undefined) query = query.where("is_paused", "=", q.paused);
  if (q.pattern) query = query.where("dag_id", "ilike", `%${q.pattern}%`);
  if (q.tags?.length) query = query.where(sql<boolean>`tags ?| ${sql.val(q.tags)}::text[]`);
  return query;
}

type DefinitionRow = Pick<DagRow, "dag_id" | "is_paused" | "is_active" | "definition">;

function toDefinitionEntry(row: DefinitionRow, hasImportErrors: boolean): DagDefinitionEntry {
  return { dag_id: row.dag_id, is_paused: row.is_paused, is_active: row.is_active, has_import_errors: hasImportErrors, definition: row.definition as DagDefinition };
}

async function toCollection(db: Db, rows: DagListRow[], total: number): Promise<ApiDagCollection> {
  const broken = await filesWithImportErrors(
    db,
    rows.map((r) => r.fileloc),
  );
  return { dags: rows.map((r) => dagToApi(r, broken.has(r.fileloc))), total_entries: total };
}

/** DAG operations of the engine API. */
export function dagOps(ctx: ApiContext) {
  const { db } = ctx;

  async function listDags(q: ListDagsQuery = {}): Promise<ApiDagCollection> {
    const { limit, offset } = resolvePage(q, ctx.maxPageLimit);
    const order = resolveOrder(q.order_by, "dag_id", DAG_ORDER);
    const base = filtered(db, { tags: q.tags, pattern: q.dag_id_pattern, paused: q.paused, onlyActive: q.only_active });
    const [{ n }, rows] = await Promise.all([
      base.select(sql<number>`count(*)::int`.as("n")).executeTakeFirstOrThrow(),
      base.select(DAG_LIST_COLUMNS).orderBy(order.column, order.direction).orderBy("dag_id").limit(limit).offset(offset).execute(),
    ]);
    return toCollection(db, rows, n);
  }

  async function getDag(dagId: string): Promise<ApiDag> {
    const row = await requireDag(db, dagId);
    const broken = await filesWithImportErrors(db, [row.fileloc]);
    return dagToApi(row, broken.has(row.fileloc));
  }

  async function getDagDetails(dagId: string): Promise<ApiDagDetail> {
    const row = await requireDag(db, dagId);
    const broken = await filesWithImportErrors(db, [row.fileloc]);
    return dagDetailToApi(row, broken.has(row.fileloc));
  }

  /**
   * Every DAG (active ones unless `onlyActive: false`) with its stored definition, ordered by dag_id:
   * what the orchestrator needs and Airflow's DAG shapes lose (examples, required params).
   */
  async function listDagDefinitions(opts: ListDagDefinitionsOptions = {}): Promise<DagDefinitionEntry[]> {
    // The state in one small query; the definitions (large jsonb) come from the cache by hash and
    // are read only for DAGs whose hash is new here (every intent lists the catalogue).
    const rows = await runPrepared(
      db,
      filtered(db, { onlyActive: opts.onlyActive })
        .select(["dag_id", "is_paused", "is_active", "hash", sql<boolean>`exists (select 1 from import_error where import_error.filename = dag.fileloc)`.as("has_import_errors")])
        .orderBy("dag_id"),
    );
    const defs = new Map(rows.map((r) => [r.dag_id, cachedDefinition(r.hash)]));
    const missing = rows.filter((r) => !defs.get(r.dag_id)).map((r) => r.dag_id);
    if (missing.length) {
      for (const d of await db.selectFrom("dag").select(["dag_id", "hash", "definition"]).where("dag_id", "in", missing).execute()) {
        defs.set(d.dag_id, rememberDefinition(d.hash, d.definition as DagDefinition));
      }
    }
    return rows.flatMap(({ hash: _hash, ...r }) => {
      const definition = defs.get(r.dag_id);
      return definition ? [{ ...r, definition }] : [];
    });
  }

  /** One DAG with its stored definition, or DagNotFoundError. */
  async function getDagDefinition(dagId: string): Promise<DagDefinitionEntry> {
    const row = await requireDag(db, dagId);
    const broken = await filesWithImportErrors(db, [row.fileloc]);
    return toDefinitionEntry(row, broken.has(row.fileloc));
  }

  /** Pause or unpause one DAG; unpausing tells the scheduler (queued runs may start). */
  async function setPaused(dagId: string, paused: boolean): Promise<ApiDag> {
    const row = await db.updateTable("dag").set({ is_paused: paused }).where("dag_id", "=", dagId).returning(DAG_LIST_COLUMNS).executeTakeFirst();
    if (!row) throw new DagNotFoundError(dagId);
    ctx.logger.info({ dagId, paused }, paused ? "dag paused" : "dag unpaused");
    if (!paused) await ctx.notifier.dagChanged(dagId, { schedule: true });
    const broken = await filesWithImportErrors(db, [row.fileloc]);
    return dagToApi(row, broken.has(row.fileloc));
  }

  /** Bulk pause/unpause of the DAGs whose id matches `pattern` (`~` means all), one page of them as Airflow does. */
  async function setPausedByPattern(pattern: string, paused: boolean, opts: PausePatternOptions = {}): Promise<ApiDagCollection> {
    if (!pattern) throw new BadRequestError("dag_id_pattern: required (use ~ for all DAGs)", { field: "dag_id_pattern" });
    const { limit, offset } = resolvePage(opts, ctx.maxPageLimit);
    const base = filtered(db, { tags: opts.tags, pattern: pattern === "~" ? undefined : pattern, onlyActive: opts.onlyActive });
    const ids = (await base.select("dag_id").orderBy("dag_id").limit(limit).offset(offset).execute()).map((r) => r.dag_id);
    if (!ids.length) return { dags: [], total_entries: 0 };
    const rows = await db.updateTable("dag").set({ is_paused: paused }).where("dag_id", "in", ids).returning(DAG_LIST_COLUMNS).execute();
    rows.sort((a, b) => a.dag_id.localeCompare(b.dag_id));
    ctx.logger.info({ count: rows.length, paused }, "dags pause state changed");
    if (!paused) for (const r of rows) await ctx.notifier.dagChanged(r.dag_id, { schedule: true });
    return toCollection(db, rows, rows.length);
  }

  /** The DAG's tasks (current definition) in Airflow's Task shape, ordered by task_id or `order_by`. */
  async function listTasks(dagId: string, orderBy?: string): Promise<ApiTaskCollection> {
    const row = await requireDag(db, dagId);
    const def = row.definition as DagDefinition;
    const order = resolveOrder(orderBy, "task_id", { task_id: "task_id", operator: "operator", retries: "retries" } as const);
    const tasks = def.tasks.map((t) => taskToApi(t, def.tasks, row.owners ?? []));
    const key = (t: (typeof tasks)[number]) => (order.column === "operator" ? t.operator_name : order.column === "retries" ? String(t.retries).padStart(6, "0") : t.task_id);
    tasks.sort((a, b) => key(a).localeCompare(key(b)) * (order.direction === "desc" ? -1 : 1));
    return { tasks, total_entries: tasks.length };
  }

  /** Source text of the DAG file behind `fileToken` (a YAML file inside the DAG folder, nothing else). */
  async function getDagSource(fileToken: string): Promise<{ content: string; fileloc: string }> {
    const file = await resolveFileToken(fileToken, ctx.dagsDir);
    if (!file) throw new NotFoundError("not_found", "Dag source not found: the file_token names no DAG file in the DAG folder");
    try {
      return { content: await readFile(file, "utf8"), fileloc: file };
    } catch {
      throw new NotFoundError("not_found", "Dag source not found: the DAG file is no longer readable");
    }
  }

  return { listDags, getDag, getDagDetails, listDagDefinitions, getDagDefinition, setPaused, setPausedByPattern, listTasks, getDagSource };
}
