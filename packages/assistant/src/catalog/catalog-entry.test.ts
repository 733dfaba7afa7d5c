import type { DagDefinition } from "@svc/dags";
import { CATALOG_FIXTURE } from "./catalog-fixture";
import { describeCatalogue, missingRequiredParams, toRouterCatalogEntry } from "./catalog-entry";

describe("catalogue helpers", () => {
  test("toRouterCatalogEntry keeps what routing needs from a DagDefinition", () => {
    const dag: DagDefinition = {
      dag_id: "x",
      description: "d",
      tags: ["t"],
      owners: [],
      schedule: null,
      max_active_runs: 1,
      params: { a: { type: "string" } },
      required_params: ["a"],
      examples: ["e"],
      doc_md: null,
      tasks: [],
    };
    expect(toRouterCatalogEntry(dag)).toEqual({ dag_id: "x", description: "d", tags: ["t"], examples: ["e"], params: { a: { type: "string" } }, required_params: ["a"] });
  });

  test("describeCatalogue lists each workflow briefly with its dag_id", () => {
    const text = describeCatalogue(CATALOG_FIXTURE);
    for (const e of CATALOG_FIXTURE) expect(text).toContain(e.dag_id);
    expect(text).toMatch(/FreeIPA/);
    expect(describeCatalogue([])).toMatch(/No workflows/);
  });

  test("describeCatalogue falls back to the first sentence of an unknown DAG's description", () => {
    expect(describeCatalogue([{ dag_id: "b", description: "Back up VMs. Nightly.", tags: [], examples: [], params: {}, required_params: [] }])).toBe("I can: Back up VMs (b).");
  });

  test("missingRequiredParams lists required params with neither value nor default", () => {
    const entry = {
      dag_id: "v",
      description: null,
      tags: [],
      examples: [],
      required_params: ["vm_name", "image"],
      params: { vm_name: { type: "string" as const }, image: { type: "string" as const, default: "rhel9" } },
    };
    expect(missingRequiredParams(entry, {})).toEqual(["vm_name"]);
    expect(missingRequiredParams(entry, { vm_name: "web01" })).toEqual([]);
  });
});
