import { toRouterCatalogEntry, type RouterCatalogEntry } from "@svc/assistant";
import type { DagDefinition } from "@svc/dags";
import type { Db } from "@svc/db";
import type { ApiDag, EngineApi } from "@svc/engine";
import { approvalReason } from "./approval";

/** One DAG as the orchestrator sees it: engine state, definition, router entry, approval rule. */
export interface CatalogueDag {
  dag_id: string;
  description: string | null;
  tags: string[];
  is_paused: boolean;
  is_active: boolean;
  has_import_errors: boolean;
  definition: DagDefinition;
  entry: RouterCatalogEntry;
  /** Why a run needs approval (creates or deletes VMs), or null. */
  approval_reason: string | null;
}

const PAGE = 100;

/** Every active DAG, page by page, through the engine API. */
async function allDags(api: Pick<EngineApi, "listDags">): Promise<ApiDag[]> {
  const out: ApiDag[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await api.listDags({ limit: PAGE, offset });
    out.push(...page.dags);
    if (page.dags.length < PAGE || out.length >= page.total_entries) return out;
  }
}

/**
 * The stored definitions of `dagIds`. The engine API exposes params and tasks only in Airflow's
 * lossy shapes (no examples, no required list), so the definition column is read directly.
 */
async function definitionsOf(db: Db, dagIds: string[]): Promise<Map<string, DagDefinition>> {
  if (!dagIds.length) return new Map();
  const rows = await db.selectFrom("dag").select(["dag_id", "definition"]).where("dag_id", "in", dagIds).execute();
  return new Map(rows.map((r) => [r.dag_id, r.definition as DagDefinition]));
}

/** The discoverable DAGs: active ones, with their definitions, sorted by dag_id. */
export async function loadCatalogue(api: Pick<EngineApi, "listDags">, db: Db): Promise<CatalogueDag[]> {
  const dags = await allDags(api);
  const defs = await definitionsOf(db, dags.map((d) => d.dag_id));
  const out: CatalogueDag[] = [];
  for (const d of dags) {
    const definition = defs.get(d.dag_id);
    if (!definition) continue;
    out.push({
      dag_id: d.dag_id,
      description: d.description,
      tags: d.tags.map((t) => t.name),
      is_paused: d.is_paused,
      is_active: d.is_active,
      has_import_errors: d.has_import_errors,
      definition,
      entry: toRouterCatalogEntry(definition),
      approval_reason: approvalReason(definition),
    });
  }
  return out.sort((a, b) => a.dag_id.localeCompare(b.dag_id));
}
