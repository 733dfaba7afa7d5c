import { roleAtLeast, type Role } from "./roles";

/**
 * The lowest role of each thing a caller may do, declared once for every way in: the REST route
 * tables (the web UI's route-roles.ts, the assistant API) and the MCP tools name an action of
 * this table, never a role of their own, so a route and the tool doing the same thing cannot
 * drift apart.
 */
export const ACTION_ROLES = {
  /** Read the catalogue, runs, task instances, logs, hosts, VMs and flows; search and ask the documentation. */
  read: "viewer",
  /** Start a run of a DAG (create or delete a VM through its workflow). */
  trigger_run: "user",
  /** Turn an intent into a flow, follow it and observe its run. */
  submit_intent: "user",
  /** Answer or cancel a flow one created oneself. */
  answer_own_flow: "user",
  /** Answer or cancel a flow someone else created. */
  answer_any_flow: "op",
  /** Approve a flow awaiting approval, or have one's own intent approved at once (`auto_approve`). */
  approve_flow: "op",
  /** Pause or unpause a DAG. */
  pause_dag: "op",
  /** Set a run's state or note, delete a run. */
  change_run: "op",
  /** Clear task instances so they run again. */
  clear_task_instances: "op",
  /** Probe hypervisor hosts now (SSH to each; the results are written to the inventory). */
  probe_hosts: "op",
  /** Add, drain, activate and remove hypervisor hosts. */
  manage_hosts: "admin",
} as const satisfies Record<string, Role>;

export type Action = keyof typeof ACTION_ROLES;

/** The lowest role that may do `action`. */
export function roleFor(action: Action): Role {
  return ACTION_ROLES[action];
}

/** Whether `role` may do `action`. */
export function mayDo(role: Role, action: Action): boolean {
  return roleAtLeast(role, ACTION_ROLES[action]);
}
