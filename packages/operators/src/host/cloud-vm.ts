import { NonRetryableError, NotFoundError, AlreadyExistsError } from "@svc/errors";
import type { HostExecutor } from "@svc/host";
import type { CloudTarget } from "@svc/hosts";
import type { VmInfo, VmSpec } from "@svc/vm";
import { firewallText, productFirewall, type Product, type ProductOptions } from "@svc/vm/plan";
import type { OperatorContext } from "../types";
import { cloudKnownHostsPath } from "./cloud-known-hosts";
import { vmOutput } from "./vm-cli";

// The VM operators on a cloud host: its driver called in the worker's process. At-least-once: a
// try again (a retry, or a duplicate delivery) finds the instance by its name and adopts it when
// its `svc-run-id` label is this run's; the provider makes the effect happen once (Hetzner's names
// are unique in a project, EC2's RunInstances takes the try's task as its idempotency token).

/** What vm_create asks of a cloud host (its args, parsed). */
export interface CloudCreateArgs {
  name: string;
  image?: string | null | undefined;
  iso?: string | null | undefined;
  memory_mb: number;
  cpus: number;
  disks_gb: number[];
  nets: string[];
  macs?: string[] | null | undefined;
  forward_ports: string[];
  user_net_outbound: boolean;
  adopt: "run" | "dag";
  wait_timeout_s: number;
  product?: Product | null | undefined;
  product_options: ProductOptions;
  allow_from: string[];
  size?: string | null | undefined;
}

/** A product VM's own firewall: SSH from where svc connects, its client ports to allow_from only; none for a VM that serves no product. */
function firewallOf(a: CloudCreateArgs, host: string, cloud: CloudTarget): VmSpec["firewall"] {
  if (!a.product) return undefined;
  if (!cloud.sshFrom.length)
    throw new NonRetryableError(
      `host '${host}': svc cannot tell the address its SSH comes from, so the firewall of ${a.product} VM '${a.name}' cannot let it in: set the host's ssh_from (svc-hosts add --ssh-from CIDR) or reach it through a bastion with an IP address`,
    );
  return productFirewall(a.product, a.product_options, a.allow_from, cloud.sshFrom);
}

/** The driver's refusals as the engine's retry meaning: input, ownership and spec errors are not retried. */
function asTryError(e: unknown): unknown {
  if (e instanceof NotFoundError || e instanceof AlreadyExistsError) return new NonRetryableError(e.message);
  return e;
}

/** A cloud host's libvirt-only args, refused by name (never dropped): its network is the host's. */
function refuseLibvirtArgs(a: CloudCreateArgs, host: string, defaultNet: string): void {
  const wrong = [
    ...(a.iso ? ["iso"] : []),
    ...(a.macs?.length ? ["macs"] : []),
    ...(a.forward_ports.length ? ["forward_ports"] : []),
    ...(a.user_net_outbound ? ["user_net_outbound"] : []),
    // `user` and the default network (SVC_VM_DEFAULT_NETWORK, vm_deployment's default) mean "the default": on a cloud host, the host's own.
    ...(a.nets.some((n) => n !== "user" && n !== defaultNet) ? [`nets ${JSON.stringify(a.nets)}`] : []),
  ];
  if (wrong.length) {
    throw new NonRetryableError(
      `host '${host}' is a cloud host: ${wrong.join(", ")} name libvirt things (its instances are on the host's network: its --network, --subnet, --security-group)`,
    );
  }
  if (!a.image) throw new NonRetryableError(`host '${host}' is a cloud host: give an image (an OS name such as debian12)`);
}

/** The public key given to the provider: the cloud host's key's `.pub`, read where the plays run. */
async function publicKey(ex: HostExecutor, keyPath: string, ctx: OperatorContext): Promise<string> {
  const r = await ex.run(["cat", "--", `${keyPath}.pub`], { timeoutMs: 20_000, signal: ctx.signal });
  const line = r.stdout.trim().split("\n")[0] ?? "";
  if (r.code !== 0 || !line) throw new NonRetryableError(`the cloud host's public key ${keyPath}.pub cannot be read on ${ex.target}: ${r.stderr.trim() || `exit ${r.code}`}`);
  return line;
}

/** vm_create's output for a cloud instance: the libvirt fields (no forwards) and what the provider says of it. */
export function cloudVmOutput(v: VmInfo, host: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...vmOutput({ ...v, iso: null, forwards: [] }),
    host,
    ...(v.cloud
      ? { provider: v.cloud.provider, region: v.cloud.region, instance_id: v.cloud.instance_id, size: v.cloud.size, public_ip: v.cloud.public_ip, private_ip: v.cloud.private_ip }
      : {}),
    ...extra,
  };
}

/** Create (or adopt, on a try again) the instance; the driver waits until the provider says it runs. */
export async function cloudCreate(a: CloudCreateArgs, ctx: OperatorContext, cloud: CloudTarget, ex: HostExecutor): Promise<Record<string, unknown>> {
  const host = ctx.host!.name;
  refuseLibvirtArgs(a, host, ctx.config.vm.defaultNetwork);
  const driver = await cloud.driver();
  const spec: VmSpec = {
    name: a.name,
    image: a.image!,
    memoryMb: a.memory_mb,
    cpus: a.cpus,
    disksGb: a.disks_gb,
    nets: [],
    sshKeys: [await publicKey(ex, cloud.keyPath, ctx)],
    ...(a.size ? { size: a.size } : {}),
  };
  const firewall = firewallOf(a, host, cloud);
  if (firewall) {
    spec.firewall = firewall;
    ctx.log(
      `VM ${a.name}'s own firewall (${a.product}) opens only: ${firewallText(firewall)}${a.allow_from.length ? "" : " (allow_from is empty: the product's ports stay closed)"}`,
      "system",
    );
  }
  ctx.log(`creating VM ${a.name} from ${a.image} on cloud host ${host} (${cloud.provider} ${cloud.region}), through its API from this worker`, "system");
  const owner = { dagId: ctx.dagId, runId: ctx.runId, taskId: ctx.taskId };
  const create = () =>
    driver.create(spec, { owner, adoptSameDag: a.adopt === "dag", waitTimeoutMs: a.wait_timeout_s * 1000, signal: ctx.signal, onProgress: (l) => ctx.log(l, "system") });
  let r;
  try {
    r = await create();
  } catch (e) {
    // A try beside this one (a duplicate delivery) made it first: the provider refused the name; it is ours to adopt.
    if (!/uniqueness_error/.test((e as Error).message)) throw asTryError(e);
    ctx.log(`VM ${a.name}: the provider says the name is taken; adopting it if this run made it`, "system");
    r = await create().catch((x: unknown) => {
      throw asTryError(x);
    });
  }
  const c = r.info.cloud;
  const where = c ? `${c.provider} ${c.region}, instance ${c.instance_id}, size ${c.size}, public ${c.public_ip ?? "-"}, private ${c.private_ip ?? "-"}` : cloud.provider;
  ctx.log(r.created ? `created VM ${a.name} (${r.info.state}; ${where})` : `VM ${a.name} already existed for this run: adopted (${r.info.state}; ${where})`, "system");
  return cloudVmOutput(r.info, host, { created: r.created, ...(r.adopted ? { adopted: true } : {}) });
}

/** Delete the instance and wait until the provider says it is gone; a missing one is a success with a note. */
export async function cloudDelete(name: string, forceForeign: boolean, ctx: OperatorContext, cloud: CloudTarget, ex: HostExecutor): Promise<Record<string, unknown>> {
  const driver = await cloud.driver();
  ctx.log(`deleting VM ${name} on cloud host ${ctx.host!.name} (${cloud.provider} ${cloud.region})`, "system");
  const r = await driver.delete(name, { forceForeign }).catch((e: unknown) => {
    const m = (e as Error).message;
    if (/^refusing to delete/.test(m))
      throw new NonRetryableError(
        `refusing to delete '${name}': the instance was not made by svc (no managed-by=svc label); set force_foreign: true in the task's args to delete it anyway`,
      );
    throw asTryError(e);
  });
  ctx.log(r.deleted ? `deleted VM ${name}` : (r.note ?? `VM ${name} did not exist`), "system");
  // Its pinned keys go with it (vm_wait_ssh wrote them; a new instance of that name gets new ones).
  const pinned = cloudKnownHostsPath(ctx.config.inventoryDir, ctx.host!.name, name);
  await ex.run(["rm", "-f", "--", pinned, `${pinned}.first_contact`], { timeoutMs: 20_000, signal: ctx.signal });
  return { name: r.name, deleted: r.deleted, ...(r.note ? { note: r.note } : {}), host: ctx.host!.name, provider: cloud.provider };
}

/** The instance as the provider reports it. */
export async function cloudInfo(name: string, ctx: OperatorContext, cloud: CloudTarget): Promise<VmInfo> {
  const driver = await cloud.driver();
  return driver.info(name).catch((e: unknown) => {
    throw asTryError(e);
  });
}
