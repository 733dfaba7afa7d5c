import { z } from "zod";

/** A host name: one DNS label, lower-case (it names queues and appears in URLs). */
export const HOST_NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
export const LOCAL_HOST = "local";

export const hostNameSchema = z.string().regex(HOST_NAME, "a host name: lower-case letters, digits and '-', 1 to 63, not starting or ending with '-'");
const userSchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_.-]{0,31}$/, "a user name");
// A DNS name, IPv4 or IPv6 literal: no spaces, no shell or URL syntax.
const addressSchema = z.string().regex(/^(\[?[0-9A-Fa-f:.]+\]?|[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)$/, "a host name or an IP address");
const absPath = z.string().regex(/^\/[^\0\n]*$/, "an absolute path");
const labelKey = z.string().regex(/^[a-z0-9]([a-z0-9._/-]{0,61}[a-z0-9])?$/, "a label key: lower-case letters, digits, '.', '_', '/', '-'");
const labelValue = z.string().regex(/^[A-Za-z0-9._:/@-]{0,63}$/, "a label value: letters, digits, '.', '_', ':', '/', '@', '-' (up to 63)");
/** One pinned key line: `type base64` (a known_hosts line without its host field). */
export const hostKeyLine = /^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp(256|384|521)|sk-ssh-ed25519@openssh\.com) [A-Za-z0-9+/]+={0,3}$/;
const hostKeySchema = z
  .string()
  .transform((s) =>
    s
      .trim()
      .split(/\r?\n/)
      .map((l) => l.trim().split(/\s+/).slice(-2).join(" "))
      .filter(Boolean)
      .join("\n"),
  )
  .refine((s) => s !== "" && s.split("\n").every((l) => hostKeyLine.test(l)), "host key lines: 'ssh-ed25519 AAAA...' (a known_hosts line without the host is accepted too)");

/** What an operator gives to add a host (CLI flags or the REST body); validated with zod. */
export const newHostSchema = z.object({
  name: hostNameSchema,
  ssh_user: userSchema,
  address: addressSchema,
  port: z.number().int().min(1).max(65535).default(22),
  key_path: absPath,
  host_key: hostKeySchema.optional(),
  libvirt_uri: z
    .string()
    .regex(/^[a-z][a-z0-9+]*:\/\/[^\s]*$/, "a libvirt URI such as qemu:///system")
    .default("qemu:///system"),
  images_dir: absPath.default("/var/lib/svc/images"),
  disks_dir: absPath.default("/var/lib/svc/vms"),
  labels: z.record(labelKey, labelValue).default({}),
  reserve_memory_mb: z.number().int().min(0).default(512),
  reserve_disk_gb: z.number().int().min(0).default(5),
  reserve_vcpus: z.number().int().min(0).default(0),
  cpu_ratio: z.number().positive().max(64).default(4),
});
export type NewHostInput = z.input<typeof newHostSchema>;
export type NewHost = z.output<typeof newHostSchema>;

/** `USER@ADDR[:PORT]` (ADDR may be `[v6]`). */
export function parseSshTarget(s: string): { ssh_user: string; address: string; port?: number } | undefined {
  const m = /^([^@\s]+)@(\[[0-9A-Fa-f:.]+\]|[^:@\s[\]]+)(?::(\d{1,5}))?$/.exec(s);
  if (!m) return undefined;
  return { ssh_user: m[1]!, address: m[2]!.replace(/^\[|\]$/g, ""), ...(m[3] ? { port: Number(m[3]) } : {}) };
}

/** `k=v` label arguments into a record (the schema checks keys and values). */
export function parseLabels(items: readonly string[]): Record<string, string> | string {
  const out: Record<string, string> = {};
  for (const it of items) {
    const i = it.indexOf("=");
    if (i <= 0) return `label '${it}': expected k=v`;
    out[it.slice(0, i)] = it.slice(i + 1);
  }
  return out;
}
