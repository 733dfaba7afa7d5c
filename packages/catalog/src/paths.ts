import path from "node:path";

/** The repository root, found from this package's place in the workspace (packages run from source). */
const ROOT = path.resolve(__dirname, "..", "..", "..");

/** Where the catalogue lives in the repository: DAG files, playbooks and their docs. */
export const CATALOG_PATHS = Object.freeze({
  dagsDir: path.join(ROOT, "dags"),
  playbooksDir: path.join(ROOT, "playbooks"),
  docsDir: path.join(ROOT, "docs", "workflows"),
});

/** The seven workflows of the catalogue (spec §2.4 plus vm_deployment). */
export const CATALOG_DAG_IDS = Object.freeze([
  "identity_deployment",
  "ca_deployment",
  "router_deployment",
  "registry_deployment",
  "cluster_initial_deployment",
  "infrastructure_health_check",
  "vm_deployment",
  "lab_deployment",
] as const);

export type CatalogDagId = (typeof CATALOG_DAG_IDS)[number];

/** The five workflows that install a product on VMs (create/delete with a product playbook). */
export const PRODUCT_DAG_IDS = Object.freeze([
  "identity_deployment",
  "ca_deployment",
  "router_deployment",
  "registry_deployment",
  "cluster_initial_deployment",
] as const satisfies readonly CatalogDagId[]);
