import { generateKeyPairSync } from "node:crypto";
import type { VmDriver, VmSpec } from "../src/types";
import { describeVmDriverConformance } from "./driver-conformance";

/** A fresh ed25519 public key in authorized_keys form, with this comment. */
export function sshKey(comment: string): string {
  const raw = generateKeyPairSync("ed25519").publicKey.export({ format: "der", type: "spki" }).subarray(-32);
  const len = (b: Buffer) => Buffer.from([0, 0, 0, b.length]);
  const type = Buffer.from("ssh-ed25519");
  return `ssh-ed25519 ${Buffer.concat([len(type), type, len(raw), raw]).toString("base64")} ${comment}`;
}

/** The spec the cloud driver tests create from, less its name. */
export const baseSpec = { image: "debian12", memoryMb: 384, cpus: 1, disksGb: [], nets: [], sshKeys: [] as string[] };

/** The VmDriver conformance suite against a cloud driver on its fake API: debian12, no networks, this key. */
export function describeCloudConformance(
  label: string,
  o: { prefix: string; sshKey: string; sized: { memory_mb: number; cpus: number }; otherSpec: Partial<VmSpec> },
  driver: () => VmDriver,
): void {
  describeVmDriverConformance(label, () => ({ driver: driver(), image: "debian12", prefix: o.prefix, nets: [], sshKeys: [o.sshKey], sized: o.sized, otherSpec: o.otherSpec }));
}
