import type { DagDefinition } from "@svc/dags";

const VM_OPERATORS = new Set(["vm_create", "vm_delete"]);
const TRIGGER_OPERATORS = new Set(["trigger_dag_run", "trigger_dag_runs"]);

/**
 * Why running this DAG needs a human's approval, or null. A workflow that may create or delete VMs
 * does: tagged `vm`, taking an `action` param (create/delete), using a VM operator, or triggering
 * other workflows' runs (trigger_dag_run, trigger_dag_runs: a lab's products, its members).
 */
export function approvalReason(def: Pick<DagDefinition, "tags" | "params" | "tasks">): string | null {
  if (def.tags.includes("vm")) return "the workflow is tagged vm: it creates or deletes virtual machines";
  if (Object.prototype.hasOwnProperty.call(def.params, "action")) return "the workflow takes an action param (create or delete)";
  const op = def.tasks.find((t) => VM_OPERATORS.has(t.operator));
  if (op) return `task ${op.task_id} uses the ${op.operator} operator`;
  // Its child runs start without an approval of their own (the parent's covers them).
  const trigger = def.tasks.find((t) => TRIGGER_OPERATORS.has(t.operator));
  if (trigger) return `task ${trigger.task_id} triggers runs of other workflows, which start without an approval of their own`;
  return null;
}
