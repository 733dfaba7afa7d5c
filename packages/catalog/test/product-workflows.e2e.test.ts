import { spawnSync } from "node:child_process";
import path from "node:path";
import { note, REPO_ROOT, startCatalogueRuntime, type CatalogueRuntime } from "./runtime-harness";
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
 * The four VM products: create in check mode on the test image (host check, VM, SSH, the product
 * playbook with --check), then delete that VM (and the host clean-up playbook, run for real).
 */
const PRODUCTS: [string, string, Record<string, unknown>, RegExp][] = [
  ["identity_deployment", `${VM_PREFIX}idm`, {}, /check mode on Debian: the product install steps need RedHat and are skipped/],
  ["ca_deployment", `${VM_PREFIX}ca`, { ca_name: "Test CA" }, /check mode on Debian: the product install steps need RedHat and are skipped/],
  ["registry_deployment", `${VM_PREFIX}registry`, { registry_type: "harbor" }, /check mode on Debian: the product install steps need RedHat and are skipped/],
  ["router_deployment", `${VM_PREFIX}router`, { networks: [] }, /check mode on Debian: the VyOS configuration steps need a VyOS image and are skipped/],
];

describe.each(PRODUCTS)("%s", (dagId, vmName, extra, checkModeNote) => {
  test(`create with check_mode creates ${vmName} from the test image, waits for SSH and runs the product playbook with --check`, async () => {
    const { run, states, seconds } = await rt.run(dagId, { vm_name: vmName, image: env.image, check_mode: true, ...SMALL, ...extra }, 900_000);
    note(`${dagId} create (check mode): ${run.state} in ${seconds} s`);
    expect(run.state).toBe("success");
    expect(states).toMatchObject({ validate_host: "success", create_vm: "success", wait_ssh: "success", configure: "success", verify: "skipped", cleanup_on_failure: "skipped", delete_vm: "skipped", report: "success" });
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
    const cleanupTask = dagId === "router_deployment" ? "remove_host_config" : "remove_record";
    expect(states[cleanupTask]).toBe("success");
    expect((await rt.logs(dagId, run.run_id, cleanupTask)).join("\n")).toMatch(/localhost\s*: ok=\d+ .*failed=0/);
  }, 360_000);
});

describe("cluster_initial_deployment", () => {
  const cluster = `${VM_PREFIX}ocp`;

  test("create with check_mode runs the installer playbooks with --check on the host: configs rendered, nothing built or booted", async () => {
    const { run, states, seconds } = await rt.run("cluster_initial_deployment", { cluster_name: cluster, deployment_size: "compact", check_mode: true }, 600_000);
    note(`cluster_initial_deployment create (check mode): ${run.state} in ${seconds} s`);
    expect(run.state).toBe("success");
    expect(states).toMatchObject({ validate_host: "success", prepare_installer: "success", create_nodes: "success", wait_install: "success", cleanup_on_failure: "skipped", report: "success" });
    const prep = (await rt.logs("cluster_initial_deployment", run.run_id, "prepare_installer")).join("\n");
    expect(prep).toMatch(/check mode on Debian: package installs, downloads and the ISO build are skipped/);
    expect(prep).toMatch(/TASK \[Write install-config.yaml and agent-config.yaml/);
    expect(prep).not.toMatch(/auths/);
    expect(exists(`${cluster}-ctrl-0`)).toBe(false);
  }, 660_000);

  test("delete removes a node VM that exists and the install directory", async () => {
    // A node as the cluster would name it, created from the test image with the VM CLI.
    const created = spawnSync(path.join(REPO_ROOT, "packages/vm/bin/svc-vm"), [
      "create", "vm", `${cluster}-ctrl-0`, "-i", env.image, "-P", "memory=512", "-P", "numcpus=1", "-P", "nets=[user]",
      "--ssh-key", env.scratch.pubKeyPath, "--images-dir", env.configEnv.SVC_VM_IMAGES_DIR!, "--disks-dir", env.scratch.disksDir, "-o", "json",
    ], { encoding: "utf8", timeout: 300_000 });
    expect({ status: created.status, stderr: created.status === 0 ? "" : created.stderr }).toEqual({ status: 0, stderr: "" });
    expect(exists(`${cluster}-ctrl-0`)).toBe(true);
    const { run, states, seconds } = await rt.run("cluster_initial_deployment", { action: "delete", cluster_name: cluster }, 300_000);
    note(`cluster_initial_deployment delete: ${run.state} in ${seconds} s`);
    expect(run.state).toBe("success");
    expect(states).toMatchObject({ delete_ctrl_0: "success", delete_ctrl_1: "success", delete_worker_1: "success", remove_install_dir: "success", prepare_installer: "skipped", report: "success" });
    expect(exists(`${cluster}-ctrl-0`)).toBe(false);
  }, 660_000);
});
