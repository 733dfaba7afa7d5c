import { DescribeImagesCommand, type EC2Client, type Image } from "@aws-sdk/client-ec2";
import { ImageNotFoundError } from "../errors";
import type { AwsImageSource } from "./settings";

/**
 * OS names (as on libvirt) → the distribution's official AWS account and its image names; the newest
 * available image is taken. Owners: Debian 136693071363, Canonical 099720109477, Rocky Linux
 * 792107900819, CentOS 125523088429, AlmaLinux 764336703387.
 */
export const AWS_IMAGES: Record<string, AwsImageSource> = {
  debian12: { owners: ["136693071363"], name: "debian-12-amd64-*" },
  debian13: { owners: ["136693071363"], name: "debian-13-amd64-*" },
  ubuntu2204: { owners: ["099720109477"], name: "ubuntu/images/hvm-ssd/ubuntu-jammy-22.04-amd64-server-*" },
  ubuntu2404: { owners: ["099720109477"], name: "ubuntu/images/hvm-ssd-gp3/ubuntu-noble-24.04-amd64-server-*" },
  rocky9: { owners: ["792107900819"], name: "Rocky-9-EC2-Base-9.*x86_64*" },
  centos9stream: { owners: ["125523088429"], name: "CentOS Stream 9 x86_64*" },
  alma9: { owners: ["764336703387"], name: "AlmaLinux OS 9.* x86_64*" },
};

/** The newest available image of an OS in the region; ImageNotFoundError names the OS names known. */
export async function resolveAwsImage(ec2: EC2Client, os: string, images: Record<string, AwsImageSource>, where: string): Promise<Image & { ImageId: string }> {
  const src = images[os];
  if (!src) throw new ImageNotFoundError(os, Object.keys(images), where);
  const r = await ec2.send(
    new DescribeImagesCommand({
      Owners: src.owners,
      Filters: [
        { Name: "name", Values: [src.name] },
        { Name: "state", Values: ["available"] },
      ],
    }),
  );
  const arch = src.architecture ?? "x86_64";
  // The architecture is checked here: compatible APIs do not all record it (then it is taken as given).
  const newest = (r.Images ?? [])
    .filter((i) => i.ImageId && (i.Architecture === undefined || i.Architecture === arch))
    .sort((a, b) => (b.CreationDate ?? "").localeCompare(a.CreationDate ?? ""))[0];
  if (!newest) throw new ImageNotFoundError(os, [], `${where}: no available image of owner ${src.owners.join(",")} named '${src.name}'`);
  return newest as Image & { ImageId: string };
}
