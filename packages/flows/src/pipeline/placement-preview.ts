import { vmCreatingTasks, type DagDefinition } from "@svc/dags";
import { DEFAULT_MAX_PROBE_AGE_MS, LOCAL_HOST, placementRequestOf, planPlacement, type HostList, type PlacementPreview, type PlannedVm, type Weigher } from "@svc/hosts";
import type { Logger } from "@svc/logger";
import { firewallAskOf, withCloudPlans, type CloudPlanner, type FirewallAsk } from "./cloud-plan";

/** The inventory as the pipeline reads it (cached: see createCachedHostList) and the workers' placement settings. */
export interface PlanHosts extends HostList {
  /** The workers' SVC_PLACEMENT_WEIGHER (default spread). */
  weigher?: Weigher;
  /** A probe older than this counts as down (default 30 s, as the workers count it). */
  maxProbeAgeMs?: number;
  /** SVC_CLOUD_APPROVAL (default op): an op approves each VM a run would create on a cloud host. */
  cloudApproval?: "op" | "none";
  /** Size, image and hourly price of a VM on a cloud host, from its provider (read-only calls). */
  cloudPlan?: CloudPlanner;
}

/**
 * The VMs the plan's run would create, as the worker's router will place them: placement steps
 * (host_check with `place`) and vm_create tasks whose `when` holds, args rendered with the plan's
 * params; a VM a placement step already placed is not counted again at its vm_create.
 */
export function plannedVms(dag: DagDefinition, params: Record<string, unknown>): PlannedVm[] {
  const out: PlannedVm[] = [];
  for (const { task_id, args } of vmCreatingTasks(dag, params)) {
    // A name the plan cannot render (it reads a task's output) is the vm_name param when there is one.
    const name = typeof args.name === "string" && args.name !== "" ? args.name : typeof params.vm_name === "string" && params.vm_name !== "" ? params.vm_name : null;
    if (name !== null && out.some((vm) => vm.vm_name === name)) continue;
    out.push({ task_id, vm_name: name, request: placementRequestOf(args) });
  }
  return out;
}

/** What each product VM's vm_create asks for its own firewall, by VM name (listed in the plan before approval). */
export function firewallAsks(dag: DagDefinition, params: Record<string, unknown>): Map<string, FirewallAsk> {
  const out = new Map<string, FirewallAsk>();
  for (const { args } of vmCreatingTasks(dag, params)) {
    const ask = firewallAskOf(args);
    if (ask && typeof args.name === "string") out.set(args.name, ask);
  }
  return out;
}

/**
 * The plan's placement preview (null: no VM to place, a single-host install, or no inventory).
 * Never fails the plan: an unreadable inventory is logged and the plan goes on without it.
 */
export async function placementPreview(hosts: PlanHosts | undefined, dag: DagDefinition, params: Record<string, unknown>, logger: Logger): Promise<PlacementPreview | null> {
  if (!hosts) return null;
  try {
    const records = await hosts.list();
    // A single-host install (or none yet) has nothing to preview: its VMs are not worked out at all.
    if (records.every((r) => r.name === LOCAL_HOST)) return null;
    const vms = plannedVms(dag, params);
    if (vms.length === 0) return null;
    const preview = planPlacement(vms, records, { weigher: hosts.weigher ?? "spread", maxProbeAgeMs: hosts.maxProbeAgeMs ?? DEFAULT_MAX_PROBE_AGE_MS });
    return preview && withCloudPlans(preview, records, hosts.cloudPlan, logger, firewallAsks(dag, params));
  } catch (e) {
    logger.warn({ dagId: dag.dag_id, err: String(e) }, "placement preview unavailable");
    return null;
  }
}
