// vm_wait_ssh's arguments: zod and the shared field schemas only, so the DAG validator's catalogue loads no VM code.
import { z } from "zod";
import { inventoryHost, vmName } from "./schemas";

export const args = z.object({
  name: vmName,
  timeout_s: z.coerce.number().min(1).max(3600).default(300),
  /** Pause between two scans of the endpoint (each scan waits 1 s for an answer; from every 8th a 10 s one goes on beside them). */
  interval_s: z.coerce.number().min(0.2).max(60).default(0.5),
  /** The host of the inventory the VM is on (default: the one whose last probe lists it, else local). */
  host: inventoryHost.nullish(),
});
export type Args = z.infer<typeof args>;
