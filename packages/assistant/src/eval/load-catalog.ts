import * as path from "node:path";
import { dagSettingsFromConfig, loadConfig } from "@svc/config";
import { parseDagFolder, type OperatorCatalog } from "@svc/dags";
import { CATALOG_FIXTURE } from "../catalog/catalog-fixture";
import { toRouterCatalogEntry } from "../catalog/catalog-entry";
import type { RouterCatalogEntry } from "../types";

/** The catalogue the eval runs on, and where it came from. */
export interface LoadedCatalog {
  entries: RouterCatalogEntry[];
  source: "dags" | "dags+fixture" | "fixture";
  note?: string;
}

/** The repository's DAG folder. */
export const DEFAULT_DAGS_DIR = path.resolve(__dirname, "../../../../dags");

/**
 * Routing reads descriptions, examples and params only; operator checks belong to the scheduler's
 * DAG processor, so any operator is accepted here.
 */
const ANY_OPERATOR: OperatorCatalog = { has: () => true, checkArgs: () => [] };

/**
 * The real DAG folder (parsed with parseDagFolder) when it yields DAGs, with fixture entries standing in
 * for catalogue DAGs the folder does not hold yet; the fixture catalogue alone when the folder has none.
 */
export async function loadEvalCatalog(dagsDir: string = DEFAULT_DAGS_DIR): Promise<LoadedCatalog> {
  try {
    const results = await parseDagFolder(dagsDir, { catalog: ANY_OPERATOR, settings: dagSettingsFromConfig(loadConfig(process.env)) });
    const dags = results.flatMap((r) => (r.ok ? [r.dag] : []));
    if (dags.length === 0) return { entries: CATALOG_FIXTURE, source: "fixture", note: `no DAGs in ${dagsDir}` };
    const real = dags.map(toRouterCatalogEntry);
    const missing = CATALOG_FIXTURE.filter((f) => !real.some((r) => r.dag_id === f.dag_id));
    if (missing.length === 0) return { entries: real, source: "dags" };
    return { entries: [...real, ...missing], source: "dags+fixture", note: `fixture stands in for ${missing.map((m) => m.dag_id).join(", ")}` };
  } catch (err) {
    return { entries: CATALOG_FIXTURE, source: "fixture", note: `could not read ${dagsDir}: ${(err as Error).message}` };
  }
}
