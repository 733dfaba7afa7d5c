import { ParamsInvalidError } from "@svc/errors";
import type { DagDefinition } from "@svc/dags";
import { defaultOperators } from "@svc/operators";
import { previewPlaybookTask, renderTaskArgs } from "../src/preview";
import { loadCatalogue } from "./load-catalogue";

let dags: Record<string, DagDefinition>;
beforeAll(async () => {
  dags = await loadCatalogue();
});

/** What the placement step and create_vm return on a libvirt network (the shapes host_check and vm_create document). */
const CREATED = {
  validate_host: { ok: true, host: "local" },
  create_vm: { name: "idm", state: "running", ssh_host: "192.168.122.10", ssh_port: 22, ip: "192.168.122.10", image: "centos9stream", memory_mb: 4096, cpus: 2, host: "local" },
  wait_ssh: { name: "idm", ssh_host: "192.168.122.10", ssh_port: 22, ssh_user: "cloud-user", host_keys: [] },
};
const SECRET_WORDS = /password|secret_value|passwd|token/i;

test("identity_deployment's configure step gets the domain and forwarder, the secrets file only as a setting, never a password", () => {
  const p = previewPlaybookTask(dags.identity_deployment!, "configure", { domain: "corp.example.org", dns_forwarder: "192.0.2.53" }, { outputs: CREATED });
  expect(p.playbook).toBe("identity-server.yml");
  expect(p.check).toBe(false);
  expect(p.extraVars).toEqual({ vm_name: "idm", domain: "corp.example.org", dns_forwarder: "192.0.2.53", dns_records: [], image: "centos9stream" });
  expect(p.args.settings).toEqual(["secrets_file", "vm_images_dir"]);
  expect(p.extraVarsYaml).not.toMatch(SECRET_WORDS);
  expect(p.args.vm).toBe("idm");
});

test("check_mode reaches the playbook as Ansible check mode", () => {
  for (const id of ["identity_deployment", "ca_deployment", "registry_deployment", "router_deployment"]) {
    expect(previewPlaybookTask(dags[id]!, "configure", { check_mode: true }, { outputs: CREATED }).check).toBe(true);
  }
  expect(renderTaskArgs(dags.cluster_initial_deployment!, "prepare_installer", { check_mode: true }, { outputs: CREATED }).args.check).toBe(true);
  expect(renderTaskArgs(dags.cluster_initial_deployment!, "prepare_installer", {}, { outputs: CREATED }).args.check).toBe(false);
});

test("registry_deployment passes the registry type through, and the host record gets the VM's address as JSON data", () => {
  const p = previewPlaybookTask(dags.registry_deployment!, "configure", { registry_type: "harbor" }, { outputs: CREATED });
  expect(p.extraVars).toMatchObject({ registry_type: "harbor", vm_name: "registry" });
  const rec = previewPlaybookTask(dags.registry_deployment!, "register_record", {}, { outputs: CREATED });
  expect(rec.args).toMatchObject({ playbook: "host-records.yml", on_host: true });
  expect(rec.extraVars).toEqual({ vm_name: "registry", domain: "lab.example.com", vm_ip: "192.168.122.10", record_state: "present" });
});

test("router_deployment hands the lab networks to both the host and the router playbooks as data", () => {
  const networks = [{ name: "lab-a", cidr: "192.168.150.0/24", gateway: "192.168.150.1" }];
  const host = previewPlaybookTask(dags.router_deployment!, "host_networks", { networks, nets: ["default", "lab-a"], check_mode: true }, { outputs: CREATED });
  expect(host.extraVars).toEqual({ networks, router_host_state: "networks" });
  expect(host.check).toBe(true);
  const vyos = previewPlaybookTask(dags.router_deployment!, "configure", { networks }, { outputs: CREATED });
  expect(vyos.extraVars.networks).toEqual(networks);
  expect(vyos.extraVarsYaml).toContain("cidr: 192.168.150.0/24");
});

test("router_deployment on Debian: a user-mode uplink may connect out, and the router gets its lab NICs' MACs and DNS upstream", () => {
  const networks = [{ name: "lab-a", cidr: "192.168.150.0/24", gateway: "192.168.150.1" }];
  const conf = { image: "debian12", networks, nets: ["user", "lab-a"], dns_forwarder: "10.0.2.2#5353" };
  expect(renderTaskArgs(dags.router_deployment!, "create_vm", conf, { outputs: CREATED }).args).toMatchObject({ nets: ["user", "lab-a"], user_net_outbound: true, adopt: "dag" });
  expect(renderTaskArgs(dags.router_deployment!, "create_vm", { networks }, { outputs: CREATED }).args).toMatchObject({ user_net_outbound: false });
  const outputs = { ...CREATED, create_vm: { ...CREATED.create_vm, macs: ["52:54:00:aa:bb:01"] } };
  const cfg = previewPlaybookTask(dags.router_deployment!, "configure", conf, { outputs });
  expect(cfg.extraVars).toMatchObject({ nets: ["user", "lab-a"], lab_macs: ["52:54:00:aa:bb:01"], dns_forwarder: "10.0.2.2#5353", dns_records: [] });
});

test("cluster_initial_deployment names the pull secret by path and renders the node sizing", () => {
  const p = previewPlaybookTask(dags.cluster_initial_deployment!, "prepare_installer", { version: "4.18", deployment_size: "compact" }, { outputs: CREATED });
  const prep = p.extraVars;
  expect(prep).toMatchObject({ cluster_name: "ocp", version: "4.18", deployment_size: "compact", dns_server: "192.168.122.1" });
  expect(p.args.settings).toEqual(["pull_secret_path"]);
  expect(JSON.stringify(prep)).not.toMatch(/auths/);
  expect(renderTaskArgs(dags.cluster_initial_deployment!, "delete_worker_1", { cluster_name: "lab" }).args).toEqual({ name: "lab-worker-1", host: null });
});

test("cluster_initial_deployment's nodes boot the agent ISO with their pinned MAC, or node_image instead, with args vm_create accepts", () => {
  const vmCreate = defaultOperators().get("vm_create")!;
  const node = (taskId: string, conf: Record<string, unknown>) => renderTaskArgs(dags.cluster_initial_deployment!, taskId, conf, { outputs: CREATED }).args;
  const ctrl0 = node("create_ctrl_0", { memory_mb: 32768, cpus: 12 });
  // 52:54:00 + md5("ocp-0")[0:6], computed with Python's hashlib.
  expect(ctrl0).toEqual({
    name: "ocp-ctrl-0",
    image: null,
    iso: "/var/lib/svc/clusters/ocp/agent.x86_64.iso",
    memory_mb: 32768,
    cpus: 12,
    disks_gb: [120],
    nets: ["default"],
    macs: ["52:54:00:0a:b9:b5"],
    host: "local",
  });
  expect(vmCreate.args.safeParse(ctrl0).success).toBe(true);
  const worker = node("create_worker_1", { cluster_name: "lab", node_image: "debian-test", node_network: "user", disk_gb: 2 });
  expect(worker).toMatchObject({ name: "lab-worker-1", image: "debian-test", iso: null, disks_gb: [2], nets: ["user"] });
  expect(vmCreate.args.safeParse(worker).success).toBe(true);
  const macs = ["ctrl_0", "ctrl_1", "ctrl_2", "worker_0", "worker_1"].map((n) => (node(`create_${n}`, {}).macs as string[])[0]);
  expect(new Set(macs).size).toBe(5);
});

test("vm_deployment uses the given name, or the picked one when none was given", () => {
  const named = renderTaskArgs(dags.vm_deployment!, "create_vm", { vm_name: "web01", cpus: 4, memory_mb: 8192 });
  expect(named.args).toEqual({
    name: "web01",
    image: "centos10stream",
    cpus: 4,
    memory_mb: 8192,
    disks_gb: [20],
    nets: ["default"],
    host: null,
    provider: null,
    region: null,
    size: null,
  });
  const picked = renderTaskArgs(dags.vm_deployment!, "create_vm", {}, { outputs: { name_vm: { exit_code: 0, stdout_tail: "vm-20250101-120000" } } });
  expect(picked.args.name).toBe("vm-20250101-120000");
  const verify = previewPlaybookTask(dags.vm_deployment!, "verify", { vm_name: "web01" }, { outputs: { create_vm: { ...CREATED.create_vm, name: "web01" } } });
  expect(verify.extraVars.verify_commands).toEqual([["sh", "-c", 'test "$(hostname)" = "$1" && grep -q "created by svc" /etc/motd', "verify", "web01"]]);
  // configure and verify take the endpoint and keys wait_ssh pinned; without its output, none.
  expect(previewPlaybookTask(dags.vm_deployment!, "configure", { vm_name: "idm" }, { outputs: CREATED }).args.vm_endpoint).toEqual(CREATED.wait_ssh);
  expect(verify.args.vm_endpoint).toBeNull();
});

test("every play on a VM the DAG just made takes the endpoint and keys its wait_ssh pinned (no VM lookup or second scan)", () => {
  const PARAMS: Record<string, Record<string, unknown>> = {
    identity_deployment: { domain: "corp.example.org" },
    router_deployment: { networks: [] },
  };
  const onNewVm = Object.values(dags).flatMap((dag) =>
    dag.tasks.some((t) => t.task_id === "wait_ssh")
      ? dag.tasks.filter((t) => t.operator === "ansible_playbook" && t.args?.vm === "{{ ti.create_vm.output.name }}").map((t) => [dag, t.task_id] as const)
      : [],
  );
  const products = [...new Set(onNewVm.map(([dag]) => dag.dag_id))].sort();
  expect(products).toEqual(["ca_deployment", "identity_deployment", "registry_deployment", "router_deployment", "vm_deployment"]);
  for (const [dag, taskId] of onNewVm) {
    const p = previewPlaybookTask(dag, taskId, { vm_name: "idm", ...PARAMS[dag.dag_id] }, { outputs: CREATED });
    expect({ dag: dag.dag_id, taskId, vm_endpoint: p.args.vm_endpoint }).toEqual({ dag: dag.dag_id, taskId, vm_endpoint: CREATED.wait_ssh });
  }
});

test("vm_deployment's host param pins every host-scoped task to that host (a lab member's too); absent, no task names a host", () => {
  const dag = dags.vm_deployment!;
  const scoped = dag.tasks.filter((t) => defaultOperators().get(t.operator)?.hostScoped).map((t) => t.task_id);
  expect(scoped.sort()).toEqual([
    "cleanup_on_failure",
    "configure",
    "create_vm",
    "delete_vm",
    "forget_member",
    "join_lab",
    "leave_lab",
    "leave_lab_on_failure",
    "record_member",
    "validate_host",
    "verify",
    "wait_ssh",
  ]);
  const outputs = { ...CREATED, create_vm: { ...CREATED.create_vm, name: "web02" } };
  for (const id of scoped) {
    expect(renderTaskArgs(dag, id, { vm_name: "web02", lab: "dev1", host: "lab2" }, { outputs }).args.host).toBe("lab2");
    const absent = renderTaskArgs(dag, id, { vm_name: "web02", lab: "dev1" }, { outputs }).args;
    expect(absent.host).toBeNull();
    // null is "no host arg" to the operators (their host is nullish): the router places or finds the VM.
    const op = defaultOperators().get(dag.tasks.find((t) => t.task_id === id)!.operator)!;
    expect(op.args.safeParse(absent).success).toBe(true);
  }
  expect(() => renderTaskArgs(dag, "create_vm", { vm_name: "web02", host: "B_2" })).toThrow(ParamsInvalidError);
});

test("the health check passes the chosen checks and limits to its playbook", () => {
  const p = previewPlaybookTask(
    dags.infrastructure_health_check!,
    "collect_findings",
    { checks: ["certificates"], cert_warn_days: 7 },
    { runId: "scheduled__2025-01-01T06:00:00+00:00" },
  );
  expect(p.extraVars).toEqual({
    health_checks: ["certificates"],
    cert_warn_days: 7,
    cert_paths: ["/etc/pki/tls/certs/svc", "/var/lib/svc/certs"],
    dns_names: ["idm.lab.example.com", "step-ca.lab.example.com", "registry.lab.example.com"],
    svc_run_id: "scheduled__2025-01-01T06:00:00+00:00",
  });
});

test("a preview with bad params throws ParamsInvalidError naming the field", () => {
  expect(() => renderTaskArgs(dags.vm_deployment!, "create_vm", { vm_name: "$(reboot)" })).toThrow(ParamsInvalidError);
  expect(() => renderTaskArgs(dags.vm_deployment!, "create_vm", { vm_name: "$(reboot)" })).toThrow(/vm_name/);
});

test("identity_deployment add_user with lab targets <lab>-idm; caller values travel as extra vars (the operator tags them !unsafe), the inventory dir only as a setting", () => {
  const key = `ssh-ed25519 ${"A".repeat(68)} {{ lookup('pipe', 'id') }}`;
  const conf = { action: "add_user", lab: "dev1", username: "alice", full_name: "Alice Example", groups: ["developers"], ssh_public_key: key };
  const p = previewPlaybookTask(dags.identity_deployment!, "manage_users", conf, { outputs: {} });
  expect(p.playbook).toBe("identity-users.yml");
  expect(p.args).toMatchObject({ vm: "dev1-idm", settings: ["secrets_file", "inventory_dir"] });
  expect(p.extraVars).toEqual({
    vm_name: "dev1-idm",
    user_action: "add_user",
    username: "alice",
    full_name: "Alice Example",
    user_groups: ["developers"],
    ssh_public_key: key,
    group_name: "",
  });
  expect(p.extraVarsYaml).not.toMatch(SECRET_WORDS);
  expect(previewPlaybookTask(dags.identity_deployment!, "manage_users", { action: "remove_user", vm_name: "idm01", username: "alice" }, { outputs: {} }).args.vm).toBe("idm01");
  // A full name is a display name: template or shell text is refused before a run exists.
  expect(() => previewPlaybookTask(dags.identity_deployment!, "manage_users", { ...conf, full_name: "Alice {{ lookup('pipe', 'id') }}" }, { outputs: {} })).toThrow(/full_name/);
});
