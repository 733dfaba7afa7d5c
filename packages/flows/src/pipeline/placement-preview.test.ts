import type { DagDefinition, TaskDefinition } from "@svc/dags";
import type { HostRecord } from "@svc/hosts";
import { silentLogger } from "@svc/logger";
import type { CloudPlanRequest } from "@svc/vm/plan";
import type { CloudPlanner } from "./cloud-plan";
import { placementPreview, plannedVms } from "./placement-preview";

type PlanTask = Pick<TaskDefinition, "task_id" | "operator" | "args" | "when">;
const task = (task_id: string, operator: string, args: Record<string, unknown>, when: string | null = null): PlanTask => ({ task_id, operator, args, when });

const VM = { name: "{{ params.vm_name }}", image: "{{ params.image }}", memory_mb: "{{ params.memory_mb }}", cpus: "{{ params.cpus }}", disks_gb: ["{{ params.disk_gb }}"] };
const CREATE = "{{ params.action == 'create' }}";

// plannedVms reads only the DAG's id and its tasks' operator, args and when.
const dag = (tasks: PlanTask[]) => ({ dag_id: "d", tasks }) as unknown as DagDefinition;

const params = { action: "create", vm_name: "ca01", image: "alpha", memory_mb: 2048, cpus: 2, disk_gb: 20, host: "" };

test("a vm_create's args are rendered with the plan's params into what placement is asked, pin included", () => {
  const d = dag([task("create_vm", "vm_create", { ...VM, host: "{{ params.host or none }}" }, CREATE)]);
  expect(plannedVms(d, params)).toEqual([{ task_id: "create_vm", vm_name: "ca01", request: { image: "alpha", memoryMb: 2048, cpus: 2, disksGb: [20] } }]);
  expect(plannedVms(d, { ...params, host: "b" })[0]!.request.host).toBe("b");
});

test("a placement step (host_check with place) counts once: its vm_create that follows its output is not counted again", () => {
  const d = dag([
    task("validate_host", "host_check", { host: "{{ params.host or none }}", place: VM }, CREATE),
    task("create_vm", "vm_create", { ...VM, host: "{{ params.host or ti.validate_host.output.host }}" }, CREATE),
  ]);
  expect(plannedVms(d, params).map((v) => [v.task_id, v.vm_name])).toEqual([["validate_host", "ca01"]]);
});

test("a plan whose create tasks are skipped by their when (a delete) has no VM to place", () => {
  const d = dag([task("create_vm", "vm_create", VM, CREATE), task("delete_vm", "vm_delete", { name: "{{ params.vm_name }}" })]);
  expect(plannedVms(d, { ...params, action: "delete" })).toEqual([]);
});

// A Hetzner host as the inventory holds it (no probe: a cloud host's placement needs none).
const hetzner: HostRecord = {
  name: "hz",
  ssh_user: "root",
  address: "api.hetzner.cloud",
  port: 443,
  key_path: "/k",
  host_key: null,
  libvirt_uri: "",
  images_dir: "",
  disks_dir: "",
  labels: {},
  state: "active",
  reserve_memory_mb: 0,
  reserve_disk_gb: 0,
  reserve_vcpus: 0,
  cpu_ratio: 1,
  last_probe: null,
  probed_at: null,
  probe_error: null,
  created_by: "admin",
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z",
  provider: "hetzner",
  provider_settings: { location: "fsn1" },
};

test("a size the request names reaches the cloud plan, which shows that size; without one the plan is asked for the smallest fitting", async () => {
  const asked: CloudPlanRequest[] = [];
  const cloudPlan: CloudPlanner = async (_h, want) => {
    asked.push(want);
    const name = want.size ?? "cx23";
    return {
      provider: "hetzner",
      region: "fsn1",
      size: { name, cpus: 2, memory_mb: 4096 },
      image: { os: want.image, mapping: "debian-12", id: "1" },
      hourly_price: null,
      price_note: null,
    };
  };
  const hosts = { list: async () => [hetzner], cloudPlan };
  const d = dag([task("create_vm", "vm_create", { ...VM, host: "{{ params.host or none }}", size: "{{ params.size or none }}" }, CREATE)]);
  const sized = await placementPreview(hosts, d, { ...params, host: "hz", size: "cx43" }, silentLogger());
  expect(asked[0]).toEqual({ image: "alpha", cpus: 2, memoryMb: 2048, size: "cx43" });
  expect(sized!.vms[0]).toMatchObject({ size: "cx43", cloud: { size: { name: "cx43" } } });
  expect(sized!.summary).toContain("cx43");
  const unsized = await placementPreview(hosts, d, { ...params, host: "hz", size: "" }, silentLogger());
  expect(asked[1]).toEqual({ image: "alpha", cpus: 2, memoryMb: 2048 });
  expect(unsized!.vms[0]!.size).toBeUndefined();
  expect(unsized!.summary).toContain("cx23");
});
