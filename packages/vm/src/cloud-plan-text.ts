// The plan's words for a cloud VM: what was asked, what the provider would make, and its one line.
// No SDK here: the assistant's and the orchestrator's plan text loads this without the drivers.
import type { CloudSize } from "./aws/sizes";
import type { HourlyPrice } from "./types";

/** What the plan asks: an OS name, and a size by name or by cpus and memory. */
export interface CloudPlanRequest {
  image: string;
  cpus: number;
  memoryMb: number;
  size?: string;
}

/** A VM as the cloud would make it. */
export interface CloudVmPlan {
  provider: "aws" | "hetzner";
  region: string;
  size: CloudSize;
  /** The OS name asked, the provider's mapping of it (Hetzner's image name; AWS's owner and name filter), and the image it finds now. */
  image: { os: string; mapping: string; id: string };
  hourly_price: HourlyPrice | null;
  /** Why there is no price (AWS: EC2's API gives none). */
  price_note: string | null;
}

/** One line for the plan: provider, region, size, image and price. */
export function describeCloudPlan(p: CloudVmPlan): string {
  const h = p.hourly_price;
  const price = h ? (h.net ? `${h.net} ${h.currency}/hour net (${h.amount} with VAT)` : `${h.amount} ${h.currency}/hour`) : (p.price_note ?? "no price");
  return `${p.provider} ${p.region}: size ${p.size.name} (${p.size.cpus} vCPUs, ${p.size.memory_mb} MiB), image ${p.image.os} → ${p.image.mapping} (${p.image.id}), ${price}`;
}
