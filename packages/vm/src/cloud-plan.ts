// What a VM would be on a cloud, before anything is made: the provider's size for the cpus and
// memory asked (its live list), its image for the OS name, and the hourly price where the API
// gives one. The plan people approve names these; nothing here creates or reserves anything.
import type { EC2Client } from "@aws-sdk/client-ec2";
import { ImageNotFoundError } from "./errors";
import { resolveAwsImage } from "./aws/images";
import type { AwsImageSource } from "./aws/settings";
import { awsInstanceTypes, pickSize } from "./aws/sizes";
import { hetznerHourlyPrice, type HetznerClient, type HcImage, type HcServerType } from "./hetzner/client";
import type { CloudPlanRequest, CloudVmPlan } from "./cloud-plan-text";

export type { CloudPlanRequest, CloudVmPlan } from "./cloud-plan-text";

/** Hetzner: the smallest x86 server type offered in the location that fits (or the one named), its hourly price there, the system image. */
export async function planHetznerVm(api: HetznerClient, location: string, images: Record<string, string>, want: CloudPlanRequest): Promise<CloudVmPlan> {
  const where = `hetzner ${location}`;
  const name = images[want.image];
  if (!name) throw new ImageNotFoundError(want.image, Object.keys(images), `${where}'s image map`);
  const types = (await api.all<HcServerType>("/server_types", "server_types")).filter(
    (t) => !t.deprecated && t.architecture === "x86" && t.prices.some((p) => p.location === location),
  );
  const size = pickSize(
    types.map((t) => ({ name: t.name, cpus: t.cores, memory_mb: Math.round(t.memory * 1024) })),
    want,
    where,
  );
  const found = (await api.request<{ images: HcImage[] }>("GET", `/images?type=system&name=${encodeURIComponent(name)}`)).images.find((i) => i.status === "available");
  if (!found) throw new ImageNotFoundError(want.image, [], `${where}: no available system image '${name}'`);
  return {
    provider: "hetzner",
    region: location,
    size,
    image: { os: want.image, mapping: name, id: String(found.id) },
    hourly_price: hetznerHourlyPrice(types, size.name, location),
    price_note: null,
  };
}

/** AWS: the smallest instance type of the region that fits (or the one named), the newest image of the OS's owner and name filter. */
export async function planAwsVm(ec2: EC2Client, region: string, images: Record<string, AwsImageSource>, want: CloudPlanRequest): Promise<CloudVmPlan> {
  const where = `aws ${region}`;
  const src = images[want.image];
  if (!src) throw new ImageNotFoundError(want.image, Object.keys(images), `${where}'s image map`);
  const size = pickSize(await awsInstanceTypes(ec2), want, where);
  const image = await resolveAwsImage(ec2, want.image, images, where);
  return {
    provider: "aws",
    region,
    size,
    image: { os: want.image, mapping: `owner ${src.owners.join(",")}, name ${src.name}, newest first`, id: image.ImageId },
    hourly_price: null,
    price_note: "no price from the API (EC2 states none; see the AWS pricing page for the region)",
  };
}
