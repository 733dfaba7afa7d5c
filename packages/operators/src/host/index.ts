import type { Operator } from "../types";
import { createAnsiblePlaybookOperator } from "./ansible-playbook";
import { createCloudOrphansOperator } from "./cloud-orphans";
import type { HostOperatorDeps } from "./deps";
import { createHostCheckOperator } from "./host-check";
import { createHttpCheckOperator } from "./http-check";
import { createSshOperator } from "./ssh-operator";
import { createVmOperators } from "./vm-operators";
import { createVmWaitSshOperator } from "./vm-wait-ssh";

/** ssh, vm_create, vm_delete, vm_info, vm_wait_ssh, ansible_playbook, http_check, host_check, cloud_orphans. */
export function createHostOperators(deps: HostOperatorDeps = {}): Operator[] {
  return [
    createSshOperator(deps),
    ...createVmOperators(deps),
    createVmWaitSshOperator(deps),
    createAnsiblePlaybookOperator(deps),
    createHttpCheckOperator(),
    createHostCheckOperator(deps),
    createCloudOrphansOperator(),
  ];
}

export { hostOperatorSettings, defaultHostExecutor } from "./deps";
export { sshReuseEnv } from "./ansible-run";
export type { HostOperatorDeps, HostOperatorSettings } from "./deps";
export type { Finding } from "./host-check";
