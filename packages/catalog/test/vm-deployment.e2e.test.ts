import { spawnSync } from "node:child_process";
import { note, startCatalogueRuntime, type CatalogueRuntime } from "./runtime-harness";
import { prepareVmTestEnv, VM_PREFIX, type VmTestEnv } from "./vm-env";

let env: VmTestEnv;
let rt: CatalogueRuntime;
beforeAll(async () => {
  env = await prepareVmTestEnv("catvm");
  rt = await startCatalogueRuntime("catvm", env.configEnv);
}, 1_800_000);
afterAll(async () => {
  await rt?.close();
  await env?.release();
});

const domstate = (name: string) => spawnSync("virsh", ["-c", "qemu:///system", "domstate", name], { encoding: "utf8" });
const NAME = `${VM_PREFIX}web`;

test("vm_deployment creates a VM from the test image, sets its hostname and motd with Ansible, and verifies them over SSH", async () => {
  const { run, states, seconds } = await rt.run("vm_deployment", { vm_name: NAME, image: env.image, nets: ["user"], cpus: 1, memory_mb: 512, disk_gb: 2 }, 900_000);
  note(`vm_deployment create: ${run.state} in ${seconds} s`);
  expect(states).toEqual({
    name_vm: "skipped",
    require_name: "skipped",
    // A VM outside any lab: the lab member's tasks are skipped.
    require_lab: "skipped",
    // One size named (size, instance_type and server_type are aliases): nothing to refuse.
    require_one_size: "skipped",
    join_lab: "skipped",
    record_member: "skipped",
    leave_lab: "skipped",
    leave_lab_on_failure: "skipped",
    forget_member: "skipped",
    validate_host: "success",
    create_vm: "success",
    wait_ssh: "success",
    configure: "success",
    verify: "success",
    cleanup_on_failure: "skipped",
    delete_vm: "skipped",
    report: "success",
  });
  expect(run.state).toBe("success");
  expect(domstate(NAME).stdout.trim()).toBe("running");
  const configure = (await rt.logs("vm_deployment", run.run_id, "configure")).join("\n");
  expect(configure).toMatch(/TASK \[vm_prep : Set the hostname\]/);
  expect(configure).toMatch(new RegExp(`${NAME}\\s*: ok=\\d+\\s+changed=[1-9]`));
}, 960_000);

test("vm_deployment delete removes the VM it created", async () => {
  const { run, states, seconds } = await rt.run("vm_deployment", { action: "delete", vm_name: NAME }, 300_000);
  note(`vm_deployment delete: ${run.state} in ${seconds} s`);
  expect(run.state).toBe("success");
  expect(states).toMatchObject({ require_name: "skipped", delete_vm: "success", create_vm: "skipped", report: "success" });
  expect(domstate(NAME).status).not.toBe(0);
}, 360_000);

test("vm_deployment refuses to delete without a name, before touching any VM", async () => {
  const { run, states } = await rt.run("vm_deployment", { action: "delete" }, 120_000);
  expect(run.state).toBe("failed");
  expect(states).toMatchObject({ require_name: "failed", delete_vm: "upstream_failed" });
}, 180_000);
