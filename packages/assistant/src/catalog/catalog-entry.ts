import type { DagDefinition } from "@svc/dags";
import type { RouterCatalogEntry } from "../types";

/** The router's view of a parsed DAG. */
export function toRouterCatalogEntry(dag: DagDefinition): RouterCatalogEntry {
  return {
    dag_id: dag.dag_id,
    description: dag.description,
    tags: [...dag.tags],
    examples: [...dag.examples],
    params: { ...dag.params },
    required_params: [...dag.required_params],
  };
}

/** Short human summaries of the DAGs we ship; other DAGs fall back to their description. */
const SUMMARIES: Record<string, string> = {
  identity_deployment: "deploy or remove a FreeIPA identity server with DNS",
  ca_deployment: "deploy or remove a step-ca certificate authority",
  router_deployment: "deploy or remove a VyOS router",
  registry_deployment: "deploy or remove a container registry (Quay mirror-registry or Harbor)",
  cluster_initial_deployment: "install an OpenShift 4.x cluster",
  infrastructure_health_check: "run an infrastructure health check",
  vm_deployment: "create or delete a virtual machine",
};

function summaryOf(entry: RouterCatalogEntry): string {
  const known = SUMMARIES[entry.dag_id];
  if (known) return known;
  const first = (entry.description ?? entry.dag_id).split(/(?<=\.)\s/)[0] ?? entry.dag_id;
  return first.replace(/\.$/, "").slice(0, 100);
}

/** A short human list of what the catalogue can do, for rejection messages. */
export function describeCatalogue(entries: readonly RouterCatalogEntry[]): string {
  if (entries.length === 0) return "No workflows are installed yet.";
  const items = entries.map((e) => `${summaryOf(e)} (${e.dag_id})`);
  return `I can: ${items.join("; ")}.`;
}

/** Required params of the entry that have neither a value in params nor a default. */
export function missingRequiredParams(entry: RouterCatalogEntry, params: Record<string, unknown>): string[] {
  return entry.required_params.filter((name) => {
    if (params[name] !== undefined && params[name] !== null && params[name] !== "") return false;
    return entry.params[name]?.default === undefined;
  });
}
