import { validateParams, type DagDefinition } from "@svc/dags";
import { loadCatalogue } from "./load-catalogue";
import { simulateHosts, type RoutedTask } from "./simulate-hosts";

// Each product DAG run through the scheduling core with its args rendered as the worker renders
// them and routed by the router's rules: placement puts a new VM on host c; host d holds the VMs
// a delete names. A pinned run must act on the pinned host only; an unpinned one on one host.
let dags: Record<string, DagDefinition>;
beforeAll(async () => {
  dags = await loadCatalogue();
});

const world = { placed: "c", held: {} };
const scoped = (ran: Record<string, RoutedTask>) => Object.entries(ran).filter(([, t]) => t.hostScoped);
const hostsOf = (ran: Record<string, RoutedTask>) => Object.fromEntries(scoped(ran).map(([id, t]) => [id, t.host]));

const VM_PRODUCTS = ["identity_deployment", "ca_deployment", "registry_deployment", "router_deployment", "cluster_initial_deployment"];
const CREATE_CONF: Record<string, Record<string, unknown>> = { cluster_initial_deployment: { deployment_size: "full" } };
const VMS_OF: Record<string, string[]> = {
  identity_deployment: ["idm"],
  ca_deployment: ["step-ca"],
  registry_deployment: ["registry"],
  router_deployment: ["vyos-router"],
  cluster_initial_deployment: ["ocp-ctrl-0", "ocp-ctrl-1", "ocp-ctrl-2", "ocp-worker-0", "ocp-worker-1"],
};

test.each(VM_PRODUCTS)("%s: with host b every host-scoped step of a create, a failed create and a delete carries host b", (id) => {
  const conf = { ...CREATE_CONF[id], host: "b" };
  const runs = [
    simulateHosts(dags[id]!, conf, world),
    simulateHosts(dags[id]!, conf, world, ["verify", "wait_install"]),
    simulateHosts(dags[id]!, { ...conf, action: "delete" }, world),
  ];
  for (const ran of runs) {
    expect(scoped(ran).length).toBeGreaterThan(1);
    for (const [task, t] of scoped(ran)) expect({ task, host: t.args.host }).toEqual({ task, host: "b" });
  }
});

test.each(VM_PRODUCTS)("%s: without host the placement step places the first VM and every later step (cleanup included) is pinned to its host", (id) => {
  for (const fail of [[], ["verify", "wait_install"]]) {
    const ran = simulateHosts(dags[id]!, CREATE_CONF[id] ?? {}, world, fail);
    const place = ran.validate_host!;
    expect(place.args).toMatchObject({ host: null, place: { name: VMS_OF[id]![0] } });
    expect(place.host).toBe("c");
    for (const [task, t] of scoped(ran).filter(([task]) => task !== "validate_host")) expect({ task, host: t.args.host }).toEqual({ task, host: "c" });
    expect(new Set(Object.values(hostsOf(ran)))).toEqual(new Set(["c"]));
  }
  // Every VM of the run was created: the cluster's five nodes, the others' one.
  const created = Object.values(simulateHosts(dags[id]!, CREATE_CONF[id] ?? {}, world)).filter((t) => t.operator === "vm_create");
  expect(created.map((t) => t.args.name)).toEqual(VMS_OF[id]);
});

test.each(VM_PRODUCTS)("%s: a delete without host acts on the host holding the VMs, its host records and networks too", (id) => {
  const held = Object.fromEntries(VMS_OF[id]!.map((vm) => [vm, "d"]));
  const ran = simulateHosts(dags[id]!, { action: "delete" }, { placed: "c", held });
  expect(scoped(ran).length).toBeGreaterThan(1);
  expect(new Set(Object.values(hostsOf(ran)))).toEqual(new Set(["d"]));
});

test("a placement step that finds the VM already on a host (a second create) keeps the whole run there", () => {
  const ran = simulateHosts(dags.router_deployment!, {}, { placed: "c", held: { "vyos-router": "d" } });
  expect(new Set(Object.values(hostsOf(ran)))).toEqual(new Set(["d"]));
  expect(ran.host_networks!.args.host).toBe("d");
});

test("ca_deployment issue: the certificate is made on the host holding the CA", () => {
  const ran = simulateHosts(dags.ca_deployment!, { action: "issue", cert_name: "web.lab.example.com" }, { placed: "c", held: { "step-ca": "d" } });
  expect(hostsOf(ran)).toEqual({ ca_info: "d", issue: "d" });
  expect(ran.issue!.args.host).toBe("d");
});

test("infrastructure_health_check checks the host given, else local", () => {
  const pinned = simulateHosts(dags.infrastructure_health_check!, { host: "b" }, world);
  expect(hostsOf(pinned)).toEqual({ validate_host: "b", collect_findings: "b", product_concerns: "b" });
  expect(hostsOf(simulateHosts(dags.infrastructure_health_check!, {}, world))).toEqual({ validate_host: "local", collect_findings: "local", product_concerns: "local" });
});

describe("lab_deployment", () => {
  const TRIGGERS = ["router", "identity", "ca", "registry"];
  const conf = (ran: Record<string, RoutedTask>, task: string) => ran[task]!.args.conf as Record<string, unknown>;

  test("with host b, place_lab checks b and every product run is triggered with host b, which the product DAG accepts", () => {
    const ran = simulateHosts(dags.lab_deployment!, { host: "b" }, world);
    expect(ran.place_lab!.host).toBe("b");
    for (const task of TRIGGERS) {
      const c = conf(ran, task);
      expect({ task, host: c.host }).toEqual({ task, host: "b" });
      expect(validateParams(dags[String(ran[task]!.args.trigger_dag_id)]!, c).ok).toBe(true);
    }
  });

  test("without host, place_lab places the whole lab (sized for its four VMs) and every product run is pinned to that one host", () => {
    const ran = simulateHosts(dags.lab_deployment!, {}, world);
    expect(ran.place_lab!.args).toMatchObject({ host: null, place: { name: "lab-router", memory_mb: 3584, cpus: 7, disks_gb: [4, 4, 4, 4] } });
    expect(ran.place_lab!.host).toBe("c");
    for (const task of TRIGGERS) expect({ task, host: conf(ran, task).host }).toEqual({ task, host: "c" });
  });

  test("a delete passes host on when given, else leaves it empty so each product finds the host holding its VM", () => {
    const deletes = ["delete_registry", "delete_ca", "delete_identity", "delete_router"];
    const pinned = simulateHosts(dags.lab_deployment!, { action: "delete", host: "b" }, world);
    const free = simulateHosts(dags.lab_deployment!, { action: "delete" }, world);
    for (const task of deletes) {
      expect({ task, host: conf(pinned, task).host }).toEqual({ task, host: "b" });
      expect({ task, host: conf(free, task).host }).toEqual({ task, host: "" });
      expect(validateParams(dags[String(free[task]!.args.trigger_dag_id)]!, conf(free, task)).ok).toBe(true);
    }
    expect(free.place_lab).toBeUndefined();
  });
});
