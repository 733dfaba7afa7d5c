import { spawnSync } from "node:child_process";
import { ansibleClusterNodes } from "./ansible-cluster-nodes";
import { note, startCatalogueRuntime, type CatalogueRuntime } from "./runtime-harness";
import { prepareVmTestEnv, VM_PREFIX, type VmTestEnv } from "./vm-env";

let env: VmTestEnv;
let rt: CatalogueRuntime;
beforeAll(async () => {
  env = await prepareVmTestEnv("catprod");
  rt = await startCatalogueRuntime("catprod", env.configEnv);
}, 1_800_000);
afterAll(async () => {
  await rt?.close();
  await env?.release();
});

const exists = (name: string) => spawnSync("virsh", ["-c", "qemu:///system", "domstate", name], { encoding: "utf8" }).status === 0;
const SMALL = { cpus: 1, memory_mb: 512, disk_gb: 2, nets: ["user"] };

/**
 * The router in check mode on the small test image (host check, VM, SSH, the product playbook with
 * --check), then delete that VM (and the host clean-up playbook, run for real). The identity server,
 * the CA and the registry are made for real on the debian12 image by test/e2e/identity-samba.e2e.test.ts
 * and test/e2e/ca-registry.e2e.test.ts.
 */
const PRODUCTS: [string, string, Record<string, unknown>, RegExp][] = [
  ["router_deployment", `${VM_PREFIX}router`, { networks: [] }, /check mode on Debian: nftables, dnsmasq, bind9-dnsutils not in this image .*the router steps are skipped/],
];

describe.each(PRODUCTS)("%s", (dagId, vmName, extra, checkModeNote) => {
  test(`create with check_mode creates ${vmName} from the test image, waits for SSH and runs the product playbook with --check`, async () => {
    const { run, states, seconds } = await rt.run(dagId, { vm_name: vmName, image: env.image, check_mode: true, ...SMALL, ...extra }, 900_000);
    note(`${dagId} create (check mode): ${run.state} in ${seconds} s`);
    expect(run.state).toBe("success");
    expect(states).toMatchObject({
      validate_host: "success",
      create_vm: "success",
      wait_ssh: "success",
      configure: "success",
      verify: "skipped",
      cleanup_on_failure: "skipped",
      delete_vm: "skipped",
      report: "success",
    });
    expect(exists(vmName)).toBe(true);
    const log = (await rt.logs(dagId, run.run_id, "configure")).join("\n");
    expect(log).toContain("[check mode]");
    expect(log).toMatch(checkModeNote);
    expect(log).toMatch(new RegExp(`${vmName}\\s*: ok=\\d+ .*failed=0`));
  }, 960_000);

  test(`delete removes ${vmName} and runs the host clean-up playbook`, async () => {
    const { run, states, seconds } = await rt.run(dagId, { action: "delete", vm_name: vmName, ...extra }, 300_000);
    note(`${dagId} delete: ${run.state} in ${seconds} s`);
    expect(run.state).toBe("success");
    expect(states).toMatchObject({ validate_host: "skipped", create_vm: "skipped", delete_vm: "success", report: "success" });
    expect(exists(vmName)).toBe(false);
    const cleanupTask = "remove_host_config";
    expect(states[cleanupTask]).toBe("success");
    expect((await rt.logs(dagId, run.run_id, cleanupTask)).join("\n")).toMatch(/localhost\s*: ok=\d+ .*failed=0/);
  }, 360_000);
});

describe("cluster_initial_deployment", () => {
  const cluster = `${VM_PREFIX}ocp`;
  const node = `${cluster}-ctrl-0`;
  const virsh = (...args: string[]) => spawnSync("virsh", ["-c", "qemu:///system", ...args], { encoding: "utf8" }).stdout ?? "";

  test("create (check mode, node_image) creates the rendezvous node through the VM layer with its pinned MAC, waits for SSH, and runs the installer playbooks with --check", async () => {
    const conf = { cluster_name: cluster, deployment_size: "sno", check_mode: true, node_image: env.image, node_network: "user", cpus: 1, memory_mb: 512, disk_gb: 2 };
    const { run, states, seconds } = await rt.run("cluster_initial_deployment", conf, 900_000);
    note(`cluster_initial_deployment create (check mode, node_image): ${run.state} in ${seconds} s`);
    expect(run.state).toBe("success");
    expect(states).toMatchObject({
      validate_host: "success",
      prepare_installer: "success",
      create_ctrl_0: "success",
      create_ctrl_1: "skipped",
      create_ctrl_2: "skipped",
      create_worker_0: "skipped",
      create_worker_1: "skipped",
      wait_ssh: "success",
      wait_install: "success",
      cleanup_on_failure: "skipped",
      delete_ctrl_0: "skipped",
      remove_install_dir: "skipped",
      report: "success",
    });
    const tis = await rt.tis("cluster_initial_deployment", run.run_id);
    expect(tis.wait_ssh!.output).toMatchObject({ name: node, ssh_host: "127.0.0.1", ssh_port: expect.any(Number) });
    // The node carries the MAC agent-config.yaml gives node 0, as Ansible derives it.
    const [first, ...others] = ansibleClusterNodes(cluster, "sno");
    expect({ name: first!.name, others: others.length }).toEqual({ name: node, others: 0 });
    expect(tis.create_ctrl_0!.output).toMatchObject({ name: node, image: env.image, iso: null, macs: [first!.mac], state: "running" });
    expect(virsh("dumpxml", node)).toContain(`mac=${first!.mac}`);
    expect(virsh("qemu-monitor-command", node, "--hmp", "info network")).toContain(`macaddr=${first!.mac}`);
    const prep = (await rt.logs("cluster_initial_deployment", run.run_id, "prepare_installer")).join("\n");
    expect(prep).toMatch(/check mode on Debian: package installs, downloads and the ISO build are skipped/);
    expect(prep).toMatch(/TASK \[cluster : Write install-config.yaml and agent-config.yaml/);
    expect(prep).not.toMatch(/auths/);
  }, 960_000);

  test("delete removes the node the create run made and the install directory", async () => {
    expect(exists(node)).toBe(true);
    const { run, states, seconds } = await rt.run("cluster_initial_deployment", { action: "delete", cluster_name: cluster }, 300_000);
    note(`cluster_initial_deployment delete: ${run.state} in ${seconds} s`);
    expect(run.state).toBe("success");
    expect(states).toMatchObject({
      delete_ctrl_0: "success",
      delete_ctrl_1: "success",
      delete_worker_1: "success",
      remove_install_dir: "success",
      prepare_installer: "skipped",
      create_ctrl_0: "skipped",
      cleanup_on_failure: "skipped",
      report: "success",
    });
    expect((await rt.tis("cluster_initial_deployment", run.run_id)).delete_ctrl_0!.output).toEqual({ name: node, deleted: true, host: "local" });
    expect(exists(node)).toBe(false);
    expect((await rt.logs("cluster_initial_deployment", run.run_id, "remove_install_dir")).join("\n")).toMatch(/localhost\s*: ok=\d+ .*failed=0/);
  }, 360_000);
});
