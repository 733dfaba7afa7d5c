import { sshFromOf, type HostRecord, type PlacementPreview, type VmPlacementPreview } from "@svc/hosts";
import type { Logger } from "@svc/logger";
import type { SvcConfig } from "@svc/config";
import { describeCloudPlan, firewallText, productFirewall, PRODUCTS, type CloudPlanRequest, type CloudVmPlan, type Product, type ProductOptions } from "@svc/vm/plan";
import type * as Vm from "@svc/vm";
import type { ApprovalNeed } from "./approval-needs";

/** What a VM would be on a cloud host (its provider's read-only calls); the orchestrator wires it with the hosts' credentials. */
export type CloudPlanner = (host: HostRecord, want: CloudPlanRequest) => Promise<CloudVmPlan>;

/** A planned VM with what its cloud would make of it (absent for a libvirt host), and its own firewall when it serves a product. */
export type PlanVm = VmPlacementPreview & { cloud?: CloudVmPlan; cloud_note?: string; firewall?: string };

/** What a product VM's create asks for its firewall (vm_create's product, product_options, allow_from), by VM name. */
export interface FirewallAsk {
  product: Product;
  options: ProductOptions;
  allowFrom: string[];
}

/** A vm_create's rendered args as a firewall ask; none for a VM that serves no product. */
export function firewallAskOf(args: Record<string, unknown>): FirewallAsk | undefined {
  const product = args.product;
  if (typeof product !== "string" || !(PRODUCTS as readonly string[]).includes(product)) return undefined;
  const o = (typeof args.product_options === "object" && args.product_options) || {};
  const allowFrom = Array.isArray(args.allow_from) ? args.allow_from.map(String) : [];
  return { product: product as Product, options: o, allowFrom };
}

/** The plan's words for a product VM's own firewall on a cloud host: the rules it would open, before approval. */
export function firewallPlanText(host: HostRecord, ask: FirewallAsk): string {
  const sshFrom = sshFromOf(host.provider_settings);
  if (!sshFrom.length) return `Its create would be refused: svc cannot tell the address its SSH comes from on host '${host.name}' (set the host's ssh_from)`;
  const closed = ask.allowFrom.length ? "" : ` (allow_from is empty: the ${ask.product} ports stay closed)`;
  return `Its own ${host.provider} firewall would open only ${firewallText(productFirewall(ask.product, ask.options, ask.allowFrom, sshFrom))}${closed}`;
}

/** The planner over each host's VM driver, its credentials from the secrets file (read when a plan needs it) or the SDK's chain where the host says so. */
export function createCloudPlanner(config: SvcConfig): CloudPlanner {
  // The drivers (and their SDKs) load on the first cloud plan: a process that never plans one never loads them.
  let vm: Promise<typeof Vm> | undefined;
  let secrets: ReturnType<typeof Vm.secretsFromConfig> | undefined;
  return async (host, want) => {
    vm ??= import("@svc/vm");
    const { cloudDriverFor, secretsFromConfig } = await vm;
    secrets ??= secretsFromConfig(config);
    const driver = await cloudDriverFor(host, secrets);
    if (!driver.plan) throw new Error(`the ${host.provider} driver gives no plan before a create`);
    return driver.plan(want);
  };
}

const NO_PLANNER = "its size, image and price are not worked out here (this orchestrator reads no cloud credentials); the provider picks them at create";

/**
 * The preview with each cloud VM's plan: provider, region, size, image and hourly price, in its
 * summary too. A planner that fails (bad credentials, an unknown OS or size) says why; it never
 * fails the plan, and the run's create fails with the same reason.
 */
export async function withCloudPlans(
  preview: PlacementPreview,
  records: readonly HostRecord[],
  planner: CloudPlanner | undefined,
  logger: Logger,
  firewalls: ReadonlyMap<string, FirewallAsk> = new Map(),
): Promise<PlacementPreview> {
  const vms = await Promise.all(
    preview.vms.map(async (vm): Promise<PlanVm> => {
      const host = records.find((r) => r.name === vm.host);
      if (!host || host.provider === "libvirt") return vm;
      const planned = await planOne(vm, host, planner, logger);
      const ask = vm.vm_name ? firewalls.get(vm.vm_name) : undefined;
      if (!ask) return planned;
      const firewall = firewallPlanText(host, ask);
      return { ...planned, firewall, summary: `${planned.summary} ${firewall}.` };
    }),
  );
  return { ...preview, vms, summary: vms.map((v) => v.summary).join(" ") };
}

/** One cloud VM's plan: provider, region, size, image and hourly price, in its summary too. */
async function planOne(vm: VmPlacementPreview, host: HostRecord, planner: CloudPlanner | undefined, logger: Logger): Promise<PlanVm> {
  if (!planner) return { ...vm, cloud_note: NO_PLANNER, summary: `${vm.summary} On ${host.provider} ${vm.region ?? ""}: ${NO_PLANNER}.` };
  try {
    const cloud = await planner(host, { image: vm.image ?? "", cpus: vm.cpus, memoryMb: vm.memory_mb, ...(vm.size ? { size: vm.size } : {}) });
    return { ...vm, cloud, summary: `${vm.summary} It would be ${describeCloudPlan(cloud)}.` };
  } catch (e) {
    logger.warn({ host: host.name, err: String(e) }, "cloud plan unavailable");
    const note = `${host.provider} could not plan it: ${(e as Error).message}`;
    return { ...vm, cloud_note: note, summary: `${vm.summary} ${note}.` };
  }
}

/** An op approves each VM a run would create on a cloud host (SVC_CLOUD_APPROVAL=op): it bills that account. */
export function cloudNeeds(preview: PlacementPreview | null, setting: "op" | "none"): ApprovalNeed[] {
  if (setting === "none" || !preview) return [];
  return (preview.vms as PlanVm[]).flatMap((vm) => {
    if (!vm.provider || vm.provider === "libvirt") return [];
    const what = vm.vm_name ? `VM '${vm.vm_name}'` : `the VM of ${vm.task_id}`;
    const plan = `${vm.cloud ? ` as ${describeCloudPlan(vm.cloud)}` : vm.cloud_note ? ` (${vm.cloud_note})` : ""}${vm.firewall ? `; ${vm.firewall}` : ""}`;
    return [
      {
        kind: "cloud" as const,
        reason: `${what} would be created on the ${vm.provider} host '${vm.host}'${plan}, billed to that account: an op approves it (SVC_CLOUD_APPROVAL=op)`,
      },
    ];
  });
}
