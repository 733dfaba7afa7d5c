import { vmCreatingTasks, type DagDefinition } from "@svc/dags";
import type { Db } from "@svc/db";

/** Who approves a VM-creating run on a cloud host: an op (SVC_CLOUD_APPROVAL=op, the default), or the usual rules (none). */
export type CloudApproval = "op" | "none";

const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);
const labelsOf = (v: unknown): [string, unknown][] => (typeof v === "object" && v !== null && !Array.isArray(v) ? Object.entries(v) : []);

/**
 * What in a run with these params would create a VM on a cloud host, one line each: a VM-creating
 * task whose host is a cloud host of the inventory, that asks for a cloud provider or a region, or
 * for labels a cloud host carries (placement may then choose that host). Empty: libvirt only.
 */
export async function cloudTargets(db: Db, def: Pick<DagDefinition, "dag_id" | "tasks">, params: Record<string, unknown>): Promise<string[]> {
  const tasks = vmCreatingTasks(def, params);
  if (tasks.length === 0) return [];
  const clouds = await db.selectFrom("hypervisor_host").select(["name", "provider", "labels"]).where("provider", "<>", "libvirt").execute();
  const out: string[] = [];
  for (const { task_id, args } of tasks) {
    const host = clouds.find((c) => c.name === str(args.host));
    const provider = str(args.provider);
    const region = str(args.region);
    const asked = labelsOf(args.host_labels);
    const labelled = asked.length ? clouds.find((c) => asked.every(([k, v]) => (c.labels as Record<string, unknown>)[k] === v)) : undefined;
    if (host) out.push(`${task_id} creates a VM on the ${host.provider} host '${host.name}'`);
    else if (provider && provider !== "libvirt") out.push(`${task_id} asks for the provider ${provider}`);
    else if (region) out.push(`${task_id} asks for the region ${region}`);
    else if (labelled) out.push(`${task_id} asks for labels the ${labelled.provider} host '${labelled.name}' carries`);
  }
  return out;
}
