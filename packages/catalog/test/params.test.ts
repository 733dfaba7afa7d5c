import { validateParams, type DagDefinition } from "@svc/dags";
import { HOSTILE_STRINGS } from "@svc/testing";
import { CATALOG_DAG_IDS } from "../src/paths";
import { loadCatalogue } from "./load-catalogue";

let dags: Record<string, DagDefinition>;
beforeAll(async () => {
  dags = await loadCatalogue();
});

const fieldsOf = (dagId: string, conf: unknown) => {
  const r = validateParams(dags[dagId]!, conf);
  return r.ok ? [] : r.errors.map((e) => e.field);
};

/** One bad run per DAG and kind of mistake: the param each must be rejected for. */
const BAD: [string, string, Record<string, unknown>, string][] = [
  ["vm_deployment", "wrong type", { cpus: "4" }, "cpus"],
  ["vm_deployment", "unknown enum value", { action: "destroy" }, "action"],
  ["vm_deployment", "bad vm_name", { vm_name: "Web_01" }, "vm_name"],
  ["vm_deployment", "out of range", { memory_mb: 10 }, "memory_mb"],
  ["identity_deployment", "wrong type", { memory_mb: "4096" }, "memory_mb"],
  ["identity_deployment", "unknown enum value", { action: "destroy" }, "action"],
  ["identity_deployment", "bad vm_name", { vm_name: "idm; reboot" }, "vm_name"],
  ["identity_deployment", "bad forwarder", { dns_forwarder: "8.8.8.8; id" }, "dns_forwarder"],
  ["identity_deployment", "bad domain", { domain: "Lab Example" }, "domain"],
  ["ca_deployment", "wrong type", { ca_port: "443" }, "ca_port"],
  ["ca_deployment", "unknown enum value", { action: "status" }, "action"],
  ["ca_deployment", "bad vm_name", { vm_name: "-ca" }, "vm_name"],
  ["ca_deployment", "bad CA name", { ca_name: "CA$(id)" }, "ca_name"],
  ["router_deployment", "wrong type", { networks: "lab1" }, "networks"],
  ["router_deployment", "unknown enum value", { action: "restart" }, "action"],
  ["router_deployment", "bad vm_name", { vm_name: "vyos router" }, "vm_name"],
  ["router_deployment", "bad network cidr", { networks: [{ name: "lab", cidr: "10.0.0.0/33", gateway: "10.0.0.1" }] }, "networks[0].cidr"],
  ["registry_deployment", "wrong type", { cpus: 2.5 }, "cpus"],
  ["registry_deployment", "unknown enum value", { registry_type: "docker-hub" }, "registry_type"],
  ["registry_deployment", "bad vm_name", { vm_name: "" }, "vm_name"],
  ["registry_deployment", "secrets file (an operator setting)", { secrets_file: "/var/lib/svc/../../etc/shadow" }, "secrets_file"],
  ["cluster_initial_deployment", "wrong type", { version: 4.19 }, "version"],
  ["cluster_initial_deployment", "unknown enum value", { deployment_size: "large" }, "deployment_size"],
  ["cluster_initial_deployment", "bad cluster_name", { cluster_name: "OCP_prod" }, "cluster_name"],
  ["cluster_initial_deployment", "not a 4.x version", { version: "3.11" }, "version"],
  ["cluster_initial_deployment", "a 4.x before the agent-based installer (4.12)", { version: "4.2" }, "version"],
  ["cluster_initial_deployment", "pull secret path (an operator setting)", { pull_secret_path: "pull-secret.json" }, "pull_secret_path"],
  ["infrastructure_health_check", "playbooks directory (an operator setting)", { playbooks_dir: "/tmp/playbooks" }, "playbooks_dir"],
  ["infrastructure_health_check", "wrong type", { cert_warn_days: "30" }, "cert_warn_days"],
  ["infrastructure_health_check", "unknown enum value", { checks: ["host", "weather"] }, "checks[1]"],
  ["infrastructure_health_check", "bad DNS name", { dns_names: ["idm.lab;id"] }, "dns_names[0]"],
];

test.each(BAD)("%s rejects a run with a %s and names the field", (dagId, _kind, conf, field) => {
  expect(fieldsOf(dagId, conf)).toContain(field);
});

test.each([...CATALOG_DAG_IDS])("%s accepts a run with no params: every param has a valid default", (dagId) => {
  const r = validateParams(dags[dagId]!, {});
  expect(r.ok).toBe(true);
  expect(dags[dagId]!.required_params).toEqual([]);
});

test.each([...CATALOG_DAG_IDS])("%s rejects an unknown param by name", (dagId) => {
  expect(fieldsOf(dagId, { colour: "blue" })).toEqual(["colour"]);
});

test("defaults from platform settings resolve to the configured domain and cluster name", () => {
  const id = validateParams(dags.identity_deployment!, {});
  const cl = validateParams(dags.cluster_initial_deployment!, {});
  expect(id.ok && id.params).toMatchObject({ action: "create", vm_name: "idm", domain: "lab.example.com" });
  expect(cl.ok && cl.params).toMatchObject({ cluster_name: "ocp", version: "4.19", deployment_size: "sno" });
  const hc = validateParams(dags.infrastructure_health_check!, {});
  expect(hc.ok && hc.params).toMatchObject({ checks: ["host", "hypervisor", "vms", "networks", "dns", "certificates", "products", "cloud"], cert_warn_days: 30 });
});

test("the intent router's parameter names are params of the DAGs they route to", () => {
  expect(validateParams(dags.vm_deployment!, { vm_name: "db-1", image: "rhel9", action: "create", cpus: 4, memory_mb: 8192 }).ok).toBe(true);
  expect(validateParams(dags.identity_deployment!, { domain: "lab.example.com", action: "delete" }).ok).toBe(true);
  expect(validateParams(dags.registry_deployment!, { registry_type: "harbor" }).ok).toBe(true);
  expect(validateParams(dags.cluster_initial_deployment!, { version: "4.19", deployment_size: "sno" }).ok).toBe(true);
});

/** Every string param that can reach a command is constrained: no hostile string gets through. */
test.each([...CATALOG_DAG_IDS])("%s rejects shell metacharacters in every name-like string param", (dagId) => {
  const dag = dags[dagId]!;
  const nameLike = Object.entries(dag.params)
    .filter(([, s]) => s.type === "string" && !s.enum)
    .map(([k]) => k);
  const accepted: string[] = [];
  for (const key of nameLike) {
    for (const bad of HOSTILE_STRINGS) {
      // An empty string is the documented "not set" value of vm_deployment.vm_name and identity's dns_forwarder.
      if (bad === "") continue;
      // A CA name and a user's full name are display names: words with spaces are fine (each travels as one argv word or JSON value).
      if ((key === "ca_name" || key === "full_name") && /^[A-Za-z0-9 ]+$/.test(bad)) continue;
      if (validateParams(dag, { [key]: bad }).ok) accepted.push(`${key}=${JSON.stringify(bad).slice(0, 40)}`);
    }
  }
  expect(accepted).toEqual([]);
});

test("each DAG has a description, tags, owners, doc_md and 6 to 10 example sentences", () => {
  for (const id of CATALOG_DAG_IDS) {
    const d = dags[id]!;
    expect({ id, ok: !!d.description && d.tags.length >= 3 && d.owners.length >= 1 && (d.doc_md ?? "").length > 200 }).toEqual({ id, ok: true });
    expect({ id, n: d.examples.length >= 6 && d.examples.length <= 10 }).toEqual({ id, n: true });
  }
});

test("every workflow that deletes says so in its examples", () => {
  for (const id of CATALOG_DAG_IDS.filter((i) => i !== "infrastructure_health_check")) {
    expect({ id, deletes: dags[id]!.examples.some((e) => /\b(delete|remove|destroy|tear down)\b/i.test(e)) }).toEqual({ id, deletes: true });
  }
});
