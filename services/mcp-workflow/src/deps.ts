import type { EngineApi } from "@svc/engine";
import type { Role } from "@svc/http";
import type { Weigher } from "@svc/hosts";
import type { Logger } from "@svc/logger";
import type { VmTools } from "./vm-access";
import type { HostList } from "./vm-hosts";

/** What the workflow tools use; the process entry and the tests build it. */
export interface WorkflowToolDeps {
  api: EngineApi;
  /** The server's role (SVC_MCP_WORKFLOW_ROLE): the tools it registers and the params its runs may set. */
  role: Role;
  logger: Logger;
  /** The host's VMs; absent when no VM driver is configured (the VM tools then say so). */
  vms?: VmTools;
  /** How often trigger_dag_and_wait looks at the run. */
  pollMs?: number;
  /** Platform settings DAG param defaults may reference (preflight resolves defaults with them). */
  dagSettings?: Record<string, string>;
  /** The DAG create_vm and delete_vm run (default vm_deployment). */
  vmDagId?: string;
  /** The hypervisor hosts (the inventory); absent or only `local`: the VM tools answer for the configured host. */
  hosts?: HostList;
  /** Placement's weigher for preflight (the workers' SVC_PLACEMENT_WEIGHER; default spread). */
  weigher?: Weigher;
  /** Probes older than this count as down in preflight (default 30 s, as the workers'). */
  maxProbeAgeMs?: number;
}
