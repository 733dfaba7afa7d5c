import { toRouterCatalogEntry, type RouterCatalogEntry } from "@svc/assistant";
import type { DagDefinition } from "@svc/dags";
import type { EngineApi } from "@svc/engine";
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

// What a definition gives, computed once per definition object (the engine hands out the same
// object while a DAG's hash is unchanged; the same entry objects let the router be reused too).
const derived = new WeakMap<DagDefinition, Pick<CatalogueDag, "entry" | "approval_reason">>();
function derive(definition: DagDefinition): Pick<CatalogueDag, "entry" | "approval_reason"> {
  let d = derived.get(definition);
  if (!d) derived.set(definition, (d = { entry: toRouterCatalogEntry(definition), approval_reason: approvalReason(definition) }));
  return d;
}

// localeCompare's order, without building a collator on every comparison (every intent sorts the catalogue).
const byId = new Intl.Collator().compare;

// The catalogue built from one list of the engine's, while the engine hands out that same list
// (a kept list: see listenedDefinitions); shared, so frozen.
const built = new WeakMap<object, readonly CatalogueDag[]>();

/** The discoverable DAGs: active ones, with their definitions, sorted by dag_id. */
export async function loadCatalogue(api: Pick<EngineApi, "listDagDefinitions">): Promise<readonly CatalogueDag[]> {
  const dags = await api.listDagDefinitions({ onlyActive: true });
  let catalogue = built.get(dags);
  if (!catalogue) built.set(dags, (catalogue = Object.freeze(fromDefinitions(dags))));
  return catalogue;
}

function fromDefinitions(dags: Awaited<ReturnType<EngineApi["listDagDefinitions"]>>): CatalogueDag[] {
  return dags
    .map(({ definition, ...state }) => ({
      ...state,
      description: definition.description,
      tags: definition.tags,
      definition,
      ...derive(definition),
    }))
    .sort((a, b) => byId(a.dag_id, b.dag_id));
}
