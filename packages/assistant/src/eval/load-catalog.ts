import * as path from "node:path";
import { dagSettingsFromConfig, loadConfig } from "@svc/config";
import { parseDagFolder, type OperatorCatalog } from "@svc/dags";
import { toRouterCatalogEntry } from "../catalog/catalog-entry";
import type { RouterCatalogEntry } from "../types";

/** The catalogue the eval runs on, and where it came from. */
export interface LoadedCatalog {
  entries: RouterCatalogEntry[];
  /** Always the DAG folder: the eval never scores a stand-in catalogue. */
  source: "dags";
  dir: string;
}

/** The repository's DAG folder. */
export const DEFAULT_DAGS_DIR = path.resolve(__dirname, "../../../../dags");

/**
 * Routing reads descriptions, examples and params only; operator checks belong to the scheduler's
 * DAG processor, so any operator is accepted here.
 */
const ANY_OPERATOR: OperatorCatalog = { has: () => true, checkArgs: () => [] };

/**
 * Every DAG of the folder (parsed with parseDagFolder), or an error saying why not: a folder that is
 * missing or holds no DAG, and any file that fails to parse, stop the eval. Scores must come from
 * the catalogue users get, so a broken `dags/` can never pass the eval on a stand-in. Param
 * defaults that name `{{ settings.* }}` get the platform's defaults unless `settings` are given,
 * so the scores do not depend on this machine's environment.
 */
export async function loadEvalCatalog(dagsDir: string = DEFAULT_DAGS_DIR, settings: Record<string, string> = dagSettingsFromConfig(loadConfig({}))): Promise<LoadedCatalog> {
  const dir = path.resolve(dagsDir);
  let results: Awaited<ReturnType<typeof parseDagFolder>>;
  try {
    results = await parseDagFolder(dir, { catalog: ANY_OPERATOR, settings });
  } catch (err) {
    throw new Error(`cannot read the DAG folder ${dir}: ${(err as Error).message}`, { cause: err });
  }
  const broken = results.flatMap((r) => (r.ok ? [] : [`${path.relative(dir, r.fileloc)}: ${r.problems.map((p) => p.message).join("; ")}`]));
  if (broken.length > 0) throw new Error(`${broken.length} DAG file(s) in ${dir} do not parse: ${broken.join(" | ")}`);
  const entries = results.flatMap((r) => (r.ok ? [toRouterCatalogEntry(r.dag)] : []));
  if (entries.length === 0) throw new Error(`no DAG files in ${dir}`);
  return { entries, source: "dags", dir };
}
