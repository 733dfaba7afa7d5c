// ansible_playbook's arguments and the settings a playbook may be given: zod and the shared field
// schemas only, so the DAG validator's catalogue loads no Ansible or SSH code.
import { z } from "zod";
import type { SvcConfig } from "@svc/config";
import { hostName, hostPath, inventoryHost, knownHostLine, userName, vmName } from "./schemas";

const target = z.object({ name: vmName, host: hostName, port: z.coerce.number().int().min(1).max(65535).default(22), user: userName.default("root") });
/** Operator settings a playbook may be given (from configuration only, never from a caller). */
export const SETTING_VARS = {
  secrets_file: (c: SvcConfig) => c.secretsFile,
  pull_secret_path: (c: SvcConfig) => c.pullSecretFile,
  /** The host's inventory directory (products' records, the CAs' roots under pki/). */
  inventory_dir: (c: SvcConfig) => c.inventoryDir,
  /** Where the host keeps its VM images (a play that works from the image's own files, as Samba's provisioning). */
  vm_images_dir: (c: SvcConfig) => c.vm.imagesDir,
} as const;
type SettingVar = keyof typeof SETTING_VARS;
/** A VM's SSH endpoint and host keys, as vm_wait_ssh outputs them. */
const vmEndpoint = z.object({
  ssh_host: hostName,
  ssh_port: z.coerce.number().int().min(1).max(65535),
  ssh_user: userName.nullish().transform((u) => u ?? "root"),
  host_keys: z.array(knownHostLine).max(16),
});
export const args = z
  .object({
    /** Playbook on the host; relative paths are under SVC_PLAYBOOKS_DIR. */
    playbook: hostPath,
    /** Target a VM by name (its SSH endpoint comes from `svc-vm info`)... */
    vm: vmName.optional(),
    /**
     * With vm: its endpoint and the host keys vm_wait_ssh pinned (`"{{ ti.wait_ssh.output }}"`).
     * The play pins those keys and neither asks svc-vm info nor scans again: one host command in all,
     * and the VM's plays share one SSH connection (sharedControlPath).
     * null (no such output), or no keys, is as if not given.
     */
    vm_endpoint: vmEndpoint.nullish(),
    /** ...or explicit hosts... */
    hosts: z.array(target).min(1).max(100).optional(),
    /** ...or the host itself (local connection, run from SVC_PLAYBOOKS_DIR). */
    on_host: z.literal(true).optional(),
    /** Written to a file (-e @file) with every string tagged !unsafe: data, never templated. */
    extra_vars: z.record(z.string(), z.unknown()).default({}),
    /** Operator settings the playbook reads, added as variables from configuration. */
    settings: z.array(z.enum(Object.keys(SETTING_VARS) as [SettingVar, ...SettingVar[]])).default([]),
    check: z.boolean().default(false),
    /** Private key on the host for the targets (default SVC_VM_SSH_PRIVKEY, else ssh's defaults). */
    private_key: hostPath.optional(),
    timeout_s: z.coerce.number().min(1).max(86_400).default(3600),
    /** The host of the inventory whose VMs (or itself, with on_host) the play is for (default: the host holding the VM, else local). */
    host: inventoryHost.nullish(),
  })
  .refine((a) => (a.vm ? 1 : 0) + (a.hosts ? 1 : 0) + (a.on_host ? 1 : 0) === 1, "give exactly one of vm, hosts or on_host")
  .refine((a) => !a.vm_endpoint || a.vm, "vm_endpoint goes with vm");
export type Args = z.infer<typeof args>;
