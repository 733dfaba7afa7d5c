// host_check's arguments: zod and the shared field schemas only, so the DAG validator's catalogue loads no SSH code.
import { z } from "zod";
import { hostPath, imageName, inventoryHost, vmName } from "./schemas";

/**
 * The first VM a DAG will create, when the check is the DAG's placement step: the router then
 * places the check as it would that VM's vm_create (the host already holding the name, the
 * pinned host, else free capacity), and the output's `host` keeps the DAG's later steps there.
 */
const placeArgs = z.object({
  name: vmName,
  image: imageName.nullish(),
  memory_mb: z.coerce.number().int().min(64).max(1_048_576).default(512),
  cpus: z.coerce.number().int().min(1).max(256).default(1),
  disks_gb: z.array(z.coerce.number().int().min(1).max(65_536)).max(16).default([]),
});

export const args = z.object({
  min_disk_gb: z.coerce.number().min(0).default(10),
  min_memory_mb: z.coerce.number().min(0).default(2048),
  /** Where free disk is measured (default: the VM images directory). */
  path: hostPath.optional(),
  /** Fail the task when a finding has severity error (default: report only). */
  fail_on_error: z.boolean().default(false),
  /** Check this host of the inventory (default: local, the configured host). */
  host: inventoryHost.nullish(),
  place: placeArgs.nullish(),
});
export type Args = z.infer<typeof args>;
