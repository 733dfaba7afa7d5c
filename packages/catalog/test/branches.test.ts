import type { DagDefinition } from "@svc/dags";
import { PRODUCT_DAG_IDS } from "../src/paths";
import { loadCatalogue } from "./load-catalogue";
import { simulateRun } from "./simulate-run";

let dags: Record<string, DagDefinition>;
beforeAll(async () => {
  dags = await loadCatalogue();
});

const VM_DAGS = ["identity_deployment", "ca_deployment", "router_deployment", "registry_deployment", "vm_deployment"];
/** Tasks that belong to the delete branch (and the join) of each DAG. */
const DELETE_PATH: Record<string, string[]> = {
  identity_deployment: ["delete_vm", "remove_record", "remove_product", "report"],
  ca_deployment: ["check_in_use", "delete_vm", "remove_record", "remove_product", "report"],
  registry_deployment: ["delete_vm", "remove_record", "remove_product", "report"],
  router_deployment: ["delete_vm", "remove_host_config", "report"],
  vm_deployment: ["delete_vm", "report"],
  cluster_initial_deployment: ["delete_ctrl_0", "delete_ctrl_1", "delete_ctrl_2", "delete_worker_0", "delete_worker_1", "remove_install_dir", "report"],
};

test.each([...PRODUCT_DAG_IDS, "vm_deployment"])("%s: a delete run runs only the delete branch and the report", (id) => {
  const conf = "vm_name" in dags[id]!.params ? { action: "delete", vm_name: "web01" } : { action: "delete" };
  const r = simulateRun(dags[id]!, conf);
  expect(r.state).toBe("success");
  expect(r.ran.sort()).toEqual([...DELETE_PATH[id]!].sort());
});

test.each(VM_DAGS)("%s: a create run on a libvirt network runs every create step, no delete step and no clean-up", (id) => {
  const r = simulateRun(dags[id]!, { action: "create", vm_name: "web01" });
  expect(r.state).toBe("success");
  expect(r.ran).toEqual(expect.arrayContaining(["validate_host", "create_vm", "wait_ssh", "configure", "verify", "report"]));
  expect(r.ran).not.toContain("delete_vm");
  expect(r.states.cleanup_on_failure).toBe("skipped");
});

test.each(["identity_deployment", "ca_deployment", "registry_deployment"])("%s: the host record is written on a libvirt network and left out for user-mode networking", (id) => {
  expect(simulateRun(dags[id]!, {}).states.register_record).toBe("success");
  expect(simulateRun(dags[id]!, { nets: ["user"] }).states.register_record).toBe("skipped");
});

test.each(["identity_deployment", "ca_deployment", "registry_deployment", "router_deployment"])("%s: check mode configures with --check and skips the service checks", (id) => {
  const r = simulateRun(dags[id]!, { check_mode: true, nets: ["user"], ...(id === "router_deployment" ? { networks: [] } : {}) });
  expect(r.state).toBe("success");
  expect(r.states).toMatchObject({ create_vm: "success", wait_ssh: "success", configure: "success", verify: "skipped", report: "success" });
});

test.each(VM_DAGS)("%s: a failure after the VM exists deletes it again, and the run fails", (id) => {
  const r = simulateRun(dags[id]!, { vm_name: "web01" }, ["configure"]);
  expect(r.state).toBe("failed");
  expect(r.states.cleanup_on_failure).toBe("success");
});

test.each(VM_DAGS)("%s: keep_on_failure keeps the VM after a failure", (id) => {
  const r = simulateRun(dags[id]!, { vm_name: "web01", keep_on_failure: true }, ["wait_ssh"]);
  expect(r.state).toBe("failed");
  expect(r.states.cleanup_on_failure).toBe("skipped");
});

test.each(VM_DAGS)("%s: when create_vm itself fails, the clean-up never deletes a VM the run did not create", (id) => {
  const r = simulateRun(dags[id]!, { vm_name: "web01" }, ["create_vm"]);
  expect(r.state).toBe("failed");
  expect(r.states.cleanup_on_failure).toBe("skipped");
});

test("cluster_initial_deployment: create makes the nodes the size asks for, waits for SSH on ctrl-0, then for the install", () => {
  const dag = dags.cluster_initial_deployment!;
  const head = ["validate_host", "prepare_installer"];
  const tail = ["wait_ssh", "wait_install", "report"];
  expect(simulateRun(dag, {}).ran).toEqual([...head, "create_ctrl_0", ...tail]);
  expect(simulateRun(dag, { deployment_size: "compact" }).ran).toEqual([...head, "create_ctrl_0", "create_ctrl_1", "create_ctrl_2", ...tail]);
  expect(simulateRun(dag, { deployment_size: "full" }).ran).toEqual([...head, "create_ctrl_0", "create_ctrl_1", "create_ctrl_2", "create_worker_0", "create_worker_1", ...tail]);
  const sno = simulateRun(dag, {});
  expect(sno.states).toMatchObject({
    create_ctrl_1: "skipped",
    create_worker_1: "skipped",
    cleanup_on_failure: "skipped",
    delete_ctrl_0: "skipped",
    remove_install_dir: "skipped",
  });
});

test("cluster_initial_deployment: check mode creates no node (there is no ISO) unless node_image names an image to boot", () => {
  const dag = dags.cluster_initial_deployment!;
  const dry = simulateRun(dag, { check_mode: true, deployment_size: "compact" });
  expect(dry.state).toBe("success");
  expect(dry.ran).toEqual(["validate_host", "prepare_installer", "wait_install", "report"]);
  const onImage = simulateRun(dag, { check_mode: true, node_image: "debian-test" });
  expect(onImage.ran).toEqual(["validate_host", "prepare_installer", "create_ctrl_0", "wait_ssh", "wait_install", "report"]);
});

test("cluster_initial_deployment: a failed create step deletes every node and the install directory unless keep_on_failure, never in check mode", () => {
  const dag = dags.cluster_initial_deployment!;
  const cleanup = ["cleanup_on_failure", "delete_ctrl_0", "delete_ctrl_1", "delete_ctrl_2", "delete_worker_0", "delete_worker_1", "remove_install_dir"];
  for (const failing of ["prepare_installer", "create_ctrl_1", "wait_ssh", "wait_install"]) {
    const r = simulateRun(dag, { deployment_size: "compact" }, [failing]);
    expect({ failing, state: r.state }).toEqual({ failing, state: "failed" });
    expect(r.ran).toEqual(expect.arrayContaining(cleanup));
    expect(r.states.report).toBe("upstream_failed");
  }
  const kept = simulateRun(dag, { keep_on_failure: true }, ["wait_install"]);
  expect(kept.state).toBe("failed");
  expect(kept.ran.filter((t) => cleanup.includes(t))).toEqual([]);
  const check = simulateRun(dag, { check_mode: true, node_image: "debian-test" }, ["create_ctrl_0"]);
  expect(check.state).toBe("failed");
  expect(check.ran.filter((t) => cleanup.includes(t))).toEqual([]);
});

test("vm_deployment: an empty name picks one on create and stops a delete before anything is deleted", () => {
  const dag = dags.vm_deployment!;
  expect(simulateRun(dag, {}).states).toMatchObject({ name_vm: "success", create_vm: "success", require_name: "skipped" });
  expect(simulateRun(dag, { vm_name: "web01" }).states.name_vm).toBe("skipped");
  const del = simulateRun(dag, { action: "delete" }, ["require_name"]);
  expect(del.state).toBe("failed");
  expect(del.states.delete_vm).toBe("upstream_failed");
});

test("infrastructure_health_check: the host probe runs only when host or hypervisor checks are asked for, the cloud check when cloud is", () => {
  const dag = dags.infrastructure_health_check!;
  expect(simulateRun(dag, {}).ran).toEqual(["validate_host", "collect_findings", "product_concerns", "cloud_orphans", "report"]);
  expect(simulateRun(dag, { checks: ["dns", "certificates"] }).ran).toEqual(["collect_findings", "report"]);
  expect(simulateRun(dag, { checks: ["cloud"] }).ran).toEqual(["collect_findings", "cloud_orphans", "report"]);
});

test.each(["add_user", "remove_user", "add_group"])("identity_deployment: %s runs only manage_users and the report on the server made before", (action) => {
  const r = simulateRun(dags.identity_deployment!, { action, lab: "dev1", username: "alice", group: "qa" });
  expect(r.state).toBe("success");
  expect(r.ran.sort()).toEqual(["manage_users", "report"]);
});

test.each([
  ["delete", ["leave_lab", "forget_member", "delete_vm", "report"]],
  ["leave", ["leave_lab", "forget_member", "report"]],
])("vm_deployment: %s with lab has the lab forget the member (records, computer account, certificate record) before anything else", (action, ran) => {
  const r = simulateRun(dags.vm_deployment!, { action, vm_name: "web01", lab: "dev1" });
  expect(r.state).toBe("success");
  expect(r.ran).toEqual(ran);
  expect(r.rounds.slice(0, 2)).toEqual([["leave_lab"], ["forget_member"]]);
});

test("vm_deployment: delete with lab keeps the VM when the lab could not forget it", () => {
  const r = simulateRun(dags.vm_deployment!, { action: "delete", vm_name: "web01", lab: "dev1" }, ["leave_lab"]);
  expect(r.state).toBe("failed");
  expect(r.states).toMatchObject({ leave_lab: "failed", forget_member: "upstream_failed", delete_vm: "upstream_failed" });
});
