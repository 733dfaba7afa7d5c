import type { DagDefinition, TaskDefinition } from "@svc/dags";
import { plannedVms } from "./placement-preview";

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
