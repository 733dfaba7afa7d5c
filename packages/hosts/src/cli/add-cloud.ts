import { resolve } from "node:path";
import type { HostProvider } from "@svc/db";
import { providerOf, type CloudProvider } from "../providers";
import type { NewCloudHostInput } from "../service";
import { UsageError } from "./context";

type Values = Record<string, string | boolean | string[] | undefined>;

/** The options of `add` per provider (the others are refused for it). */
const LIBVIRT_ONLY = ["ssh", "libvirt-uri", "host-key", "images-dir", "disks-dir", "reserve-memory", "reserve-disk", "reserve-vcpus", "cpu-ratio"];
const CLOUD: Record<CloudProvider, Record<string, string>> = {
  aws: {
    region: "region",
    zone: "zone",
    subnet: "subnet",
    "security-group": "security_group",
    endpoint: "endpoint",
    credentials: "credentials",
    bastion: "bastion",
    "ssh-user": "ssh_user",
    "ssh-from": "ssh_from",
  },
  hetzner: { location: "location", network: "network", endpoint: "endpoint", bastion: "bastion", "ssh-user": "ssh_user", "ssh-from": "ssh_from" },
  gcp: { project: "project", zone: "zone", network: "network", subnet: "subnet", endpoint: "endpoint", credentials: "credentials", "ssh-from": "ssh_from" },
  azure: {
    subscription: "subscription",
    location: "location",
    "resource-group": "resource_group",
    vnet: "vnet",
    subnet: "subnet",
    endpoint: "endpoint",
    "authority-host": "authority_host",
    "ssh-from": "ssh_from",
  },
};
const CLOUD_OPTS = [...new Set([...Object.values(CLOUD).flatMap((o) => Object.keys(o)), "bastion-key"])];

/** The provider `add` was given (`libvirt` without --provider); an unknown or retired one is a usage error. */
export function addProvider(v: Values): HostProvider {
  const p = providerOf((v.provider as string | undefined) ?? "libvirt");
  if (typeof p !== "string") throw new UsageError(p.error);
  const given = (opts: string[]) => opts.filter((o) => v[o] !== undefined).map((o) => `--${o}`);
  if (p === "libvirt") {
    const wrong = given(CLOUD_OPTS);
    if (wrong.length) throw new UsageError(`${wrong.join(", ")}: for cloud hosts (--provider aws|hetzner|gcp|azure), not libvirt ones`);
    return p;
  }
  const wrong = [...given(LIBVIRT_ONLY), ...given(CLOUD_OPTS.filter((o) => !(o in CLOUD[p]) && o !== "bastion-key"))];
  if (v["bastion-key"] !== undefined && v.bastion === undefined) throw new UsageError("--bastion-key goes with --bastion");
  if (wrong.length) throw new UsageError(`${wrong.join(", ")}: not an option of a ${p} host (see svc-hosts add --help)`);
  return p;
}

/** A cloud host from `add`'s options; the service validates the settings. */
export function cloudHostInput(name: string, provider: CloudProvider, v: Values, labels: Record<string, string>, vmKey: string | undefined): NewCloudHostInput {
  const key = (v.key as string | undefined) ?? vmKey;
  if (!key) throw new UsageError("a cloud host needs --key PATH (the private key svc reaches its instances with), or SVC_VM_SSH_PRIVKEY");
  const settings: Record<string, string> = {};
  for (const [opt, field] of Object.entries(CLOUD[provider])) if (typeof v[opt] === "string") settings[field] = v[opt];
  const bastionKey = v["bastion-key"] as string | undefined;
  return { name, provider, settings, key_path: resolve(key), labels, ...(bastionKey ? { bastion_key: bastionKey } : {}) };
}
