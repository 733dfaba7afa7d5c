import { formatProblems, parseDagFolder, type DagDefinition } from "@svc/dags";
import { defaultOperators } from "@svc/operators";
import { CATALOG_PATHS } from "../src/paths";
import { TEST_SETTINGS } from "./settings";

/** Every DAG of the catalogue, loaded with the real operator registry; throws listing import errors. */
export async function loadCatalogue(): Promise<Record<string, DagDefinition>> {
  const results = await parseDagFolder(CATALOG_PATHS.dagsDir, { catalog: defaultOperators(), settings: TEST_SETTINGS });
  const bad = results.filter((r) => !r.ok);
  if (bad.length) throw new Error(bad.map((r) => `${r.fileloc}:\n${r.ok ? "" : formatProblems(r.problems)}`).join("\n"));
  return Object.fromEntries(results.flatMap((r) => (r.ok ? [[r.dag.dag_id, r.dag]] : [])));
}
