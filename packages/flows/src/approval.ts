import type { DagDefinition } from "@svc/dags";

const VM_OPERATORS = new Set(["vm_create", "vm_delete"]);

/**
 * Why running this DAG needs a human's approval, or null. A workflow that may create or delete VMs
 * does: tagged `vm`, taking an `action` param (create/delete), or using a VM operator.
 */
export function approvalReason(def: Pick<DagDefinition, "tags" | "params" | "tasks">): string | null {
  if (def.tags.includes("vm")) return "the workflow is tagged vm: it creates or deletes virtual machines";
  if (Object.prototype.hasOwnProperty.call(def.params, "action")) return "the workflow takes an action param (create or delete)";
  const op = def.tasks.find((t) => VM_OPERATORS.has(t.operator));
  if (op) return `task ${op.task_id} uses the ${op.operator} operator`;
  return null;
}
