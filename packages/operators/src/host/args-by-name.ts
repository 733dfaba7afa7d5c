// The host operators' argument schemas by name, for the catalogue (../catalog.ts): schema modules only.
import type { z } from "zod";
import { args as ansiblePlaybookArgs } from "./ansible-playbook-args";
import { args as cloudOrphansArgs } from "./cloud-orphans-args";
import { args as hostCheckArgs } from "./host-check-args";
import { args as httpCheckArgs } from "./http-check-args";
import { args as sshArgs } from "./ssh-args";
import { createArgs, deleteArgs, nameArgs } from "./vm-args";
import { args as vmWaitSshArgs } from "./vm-wait-ssh-args";

/** The host operators' schemas by name: the same objects their operators (host/index.ts) hold. */
export const HOST_OPERATOR_ARGS: ReadonlyArray<readonly [string, z.ZodType]> = [
  ["ssh", sshArgs],
  ["vm_create", createArgs],
  ["vm_delete", deleteArgs],
  ["vm_info", nameArgs],
  ["vm_wait_ssh", vmWaitSshArgs],
  ["ansible_playbook", ansiblePlaybookArgs],
  ["http_check", httpCheckArgs],
  ["host_check", hostCheckArgs],
  ["cloud_orphans", cloudOrphansArgs],
];
