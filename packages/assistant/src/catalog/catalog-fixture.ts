import type { ParamSchema } from "@svc/dags";
import type { RouterCatalogEntry } from "../types";

const NAME_PATTERN = "^[a-z][a-z0-9-]{0,62}$";
const DOMAIN_PATTERN = "^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z]{2,63}$";

const action: ParamSchema = { type: "string", enum: ["create", "delete"], default: "create", description: "create or delete" };
const vmName = (def?: string): ParamSchema =>
  def ? { type: "string", pattern: NAME_PATTERN, default: def, description: "VM name" } : { type: "string", pattern: NAME_PATTERN, description: "VM name" };
const image = (def: string): ParamSchema => ({ type: "string", pattern: "^[a-z][a-z0-9.-]{1,63}$", default: def, description: "VM image" });
const domain: ParamSchema = { type: "string", pattern: DOMAIN_PATTERN, description: "DNS domain" };
const dnsForwarder: ParamSchema = { type: "string", pattern: "^\\d{1,3}(\\.\\d{1,3}){3}$", default: "1.1.1.1", description: "upstream DNS" };
const registryType: ParamSchema = { type: "string", enum: ["mirror-registry", "harbor"], default: "mirror-registry", description: "registry product" };
/** The hypervisor host a run is pinned to (every VM DAG, the lab and the health check take it). */
const host: ParamSchema = { type: "string", pattern: "^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)?$", default: "", description: "host of the inventory; empty: placement chooses" };
const sizing = (mem: number, cpus: number, disk: number): Record<string, ParamSchema> => ({
  memory_mb: { type: "integer", minimum: 512, maximum: 1048576, default: mem, description: "memory in MiB" },
  cpus: { type: "integer", minimum: 1, maximum: 128, default: cpus, description: "virtual CPUs" },
  disk_gb: { type: "integer", minimum: 1, maximum: 16384, default: disk, description: "root disk in GiB" },
});
/** A VM DAG's params, in the shipped DAGs' order: action, vm_name, its own, image (when it takes one), sizing, host. */
const vmParams = (name: string | undefined, own: Record<string, ParamSchema>, img: string | null, [mem, cpus, disk]: [number, number, number]): Record<string, ParamSchema> => ({
  action,
  vm_name: vmName(name),
  ...own,
  ...(img ? { image: image(img) } : {}),
  ...sizing(mem, cpus, disk),
  host,
});

/** A catalogue that mirrors the shipped DAGs; used by tests and when the DAG folder is empty. */
export const CATALOG_FIXTURE: RouterCatalogEntry[] = [
  {
    dag_id: "identity_deployment",
    description: "Deploy a FreeIPA (IdM) identity management server with integrated DNS on a new VM.",
    tags: ["freeipa", "idm", "identity", "dns"],
    examples: ["deploy freeipa", "install an identity management server with DNS", "delete the freeipa deployment"],
    params: vmParams("idm", { domain, dns_forwarder: dnsForwarder }, "centos9stream", [4096, 2, 50]),
    required_params: [],
  },
  {
    dag_id: "ca_deployment",
    description: "Deploy a step-ca certificate authority for internal PKI: TLS certificates and an ACME endpoint.",
    tags: ["step-ca", "pki", "certificates", "acme"],
    examples: ["deploy step-ca", "set up a certificate authority", "delete the step-ca vm"],
    params: vmParams("step-ca", { domain }, "centos9stream", [2048, 2, 20]),
    required_params: [],
  },
  {
    dag_id: "router_deployment",
    description: "Deploy a VyOS router VM with the lab networks and host routes.",
    tags: ["vyos", "router", "network"],
    examples: ["deploy a vyos router", "create a router for the lab networks", "delete the router vm"],
    params: vmParams("vyos-router", { networks: { type: "array", items: { type: "string" }, default: ["lab"], description: "networks to attach" } }, null, [2048, 2, 10]),
    required_params: [],
  },
  {
    dag_id: "registry_deployment",
    description: "Deploy a container registry for container images: Quay mirror-registry or Harbor.",
    tags: ["registry", "harbor", "quay", "mirror-registry"],
    examples: ["deploy a container registry", "install harbor", "deploy the quay mirror registry"],
    params: vmParams("registry", { registry_type: registryType, domain }, "centos9stream", [8192, 4, 200]),
    required_params: [],
  },
  {
    dag_id: "cluster_initial_deployment",
    description: "Deploy an OpenShift 4.x cluster with the agent-based installer.",
    tags: ["openshift", "ocp", "cluster"],
    examples: ["deploy an OpenShift cluster", "install openshift single node", "create an OCP cluster"],
    params: {
      cluster_name: { type: "string", pattern: NAME_PATTERN, default: "ocp", description: "cluster name" },
      version: { type: "string", pattern: "^4\\.(1[2-9]|[2-9]\\d)(\\.\\d{1,3})?$", default: "4.19", description: "OpenShift version, 4.12 or later" },
      deployment_size: { type: "string", enum: ["sno", "compact", "full"], default: "sno", description: "topology" },
      domain,
      pull_secret_path: { type: "string", default: "~/pull-secret.json", description: "pull secret file" },
      host,
    },
    required_params: [],
  },
  {
    dag_id: "infrastructure_health_check",
    description: "Health report of the host, hypervisor, VMs, networks, DNS and certificates.",
    tags: ["health", "check", "validation", "monitoring"],
    examples: ["run the infrastructure health check", "check that everything is healthy", "check the lab status"],
    params: {
      checks: { type: "array", items: { type: "string", enum: ["host", "hypervisor", "vms", "networks", "dns", "certificates"] }, description: "checks to run" },
      cert_warn_days: { type: "integer", minimum: 1, maximum: 365, default: 30, description: "warn when a certificate expires sooner" },
      host,
    },
    required_params: [],
  },
  {
    dag_id: "vm_deployment",
    description: "Create or delete a generic virtual machine from an image.",
    tags: ["vm", "virtual-machine"],
    examples: ["create a vm named app01", "delete the vm named app01", "provision a virtual machine from an image"],
    params: vmParams(undefined, {}, "centos10stream", [2048, 2, 20]),
    required_params: [],
  },
];
