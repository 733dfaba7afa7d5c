// vm_create's, vm_delete's and vm_info's arguments: zod and the shared field schemas only, so the DAG validator's catalogue loads no VM code.
import { z } from "zod";
import { cidrProblem } from "@svc/dags";
import { PRODUCTS, REGISTRY_TYPES } from "@svc/vm/plan";
import { absoluteHostPath, forwardPort, hostPath, imageName, inventoryHost, macAddress, netName, vmName } from "./schemas";

export const createArgs = z
  .object({
    name: vmName,
    /** Base image; null or absent when the VM boots `iso` on empty disks. */
    image: imageName.nullish(),
    /** Absolute path on the host of a bootable ISO, attached as a CD-ROM (null or absent: none). */
    iso: absoluteHostPath.nullish(),
    memory_mb: z.coerce.number().int().min(64).max(1_048_576).default(512),
    cpus: z.coerce.number().int().min(1).max(256).default(1),
    disks_gb: z.array(z.coerce.number().int().min(1).max(65_536)).max(16).default([]),
    nets: z.array(netName).min(1).max(8).default(["user"]),
    /** One MAC per entry of nets (lower-case, unicast); null or absent: the hypervisor picks them. */
    macs: z.array(macAddress).max(8).nullish(),
    /** Guest ports forwarded to 127.0.0.1 ports on the host (`tcp/53`, `udp/53`; nets must include user). */
    forward_ports: z.array(forwardPort).max(32).default([]),
    /** Let the guest connect out of its user-mode NIC (a router's uplink; nets must include user). Default: restricted. */
    user_net_outbound: z.boolean().default(false),
    /** Public key file on the host to inject (default SVC_VM_SSH_PUBKEY, else the host user's ~/.ssh/id_*.pub). */
    ssh_pubkey_path: hostPath.optional(),
    /**
     * `run` (default): a VM recorded for another run is refused. `dag`: a VM another run of this
     * DAG made with the same spec is adopted (output adopted: true), so a product's second create
     * re-applies its role to the server it finds.
     */
    adopt: z.enum(["run", "dag"]).default("run"),
    /** Wait in the CLI until SSH answers (vm_wait_ssh does the same as its own task). */
    wait: z.boolean().default(false),
    wait_timeout_s: z.coerce.number().int().min(1).max(3600).default(300),
    /** Create it on this host of the inventory (default: the host holding the name, else placement by free capacity). */
    host: inventoryHost.nullish(),
    /** The product this VM serves: on a cloud host its own firewall opens that product's client ports (@svc/vm/plan's table) to allow_from only. */
    product: z.enum(PRODUCTS).nullish(),
    /** The product's values that move its ports (the CA's ca_port, the registry's registry_type). */
    product_options: z
      .object({ ca_port: z.coerce.number().int().min(1).max(65535).optional(), registry_type: z.enum(REGISTRY_TYPES).optional() })
      .strict()
      .default({}),
    /** The CIDRs the product's ports open to on a cloud host (none: only SSH, from the address svc connects from). */
    allow_from: z
      .array(z.string().superRefine((c, ctx) => void (cidrProblem(c) && ctx.addIssue({ code: "custom", message: cidrProblem(c)! }))))
      .max(32)
      .default([]),
    /** Placement's target without `host`: a host of this provider, in this region (a cloud host only when one names it); with `host`, that host must match. */
    provider: z.enum(["libvirt", "aws", "hetzner", "gcp", "azure"]).nullish(),
    region: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]{0,31}$/, "region: lower-case letters, digits and '-' (eu-west-1, fsn1)")
      .nullish(),
    /** A cloud size by the provider's name (instance type, server type); refused on a libvirt host. */
    size: z
      .string()
      .regex(/^[a-z0-9][a-z0-9.-]{0,31}$/, "size: a provider's size name (t3.micro, cx23)")
      .nullish(),
  })
  .refine((a) => !a.allow_from.length || !!a.product, { message: "allow_from opens a product's ports: give product", path: ["allow_from"] })
  .refine((a) => !!a.image || !!a.iso, { message: "give an image, or an iso to boot", path: ["image"] })
  .refine((a) => !a.macs || a.macs.length === a.nets.length, { message: "give one MAC per entry of nets", path: ["macs"] })
  .refine((a) => !a.user_net_outbound || a.nets.includes("user"), { message: "user_net_outbound needs 'user' in nets", path: ["user_net_outbound"] });
export type CreateArgs = z.infer<typeof createArgs>;
/** `host`: the host of the inventory the VM is on (default: the one whose last probe lists it, else local). */
export const nameArgs = z.object({ name: vmName, host: inventoryHost.nullish() });
export const deleteArgs = z.object({
  name: vmName,
  /**
   * Delete a domain svc did not create (no svc metadata). Only a DAG author can set it: no
   * trigger parameter of the shipped DAGs reaches it.
   */
  force_foreign: z.boolean().default(false),
  host: inventoryHost.nullish(),
});
export type DeleteArgs = z.infer<typeof deleteArgs>;
