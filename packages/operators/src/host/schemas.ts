import { z } from "zod";

/** Field schemas shared by the host operators; every string that reaches a command is constrained. */
export const vmName = z.string().regex(/^[a-z][a-z0-9-]{0,62}$/, "VM name must match ^[a-z][a-z0-9-]{0,62}$ (lowercase letters, digits, '-', starting with a letter)");
export const imageName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, "image name must be letters, digits, '.', '_' or '-'")
  .refine((s) => !s.includes(".."), "image name must not contain '..'");
/** A guest port to forward to the host's loopback: `tcp/636`, `udp/53`. */
export const forwardPort = z.string().regex(/^(tcp|udp)\/([1-9][0-9]{0,4})$/, "forward must be PROTO/PORT with PROTO tcp or udp, e.g. tcp/636");
export const netName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, "network name must be letters, digits, '.', '_' or '-'");
export const hostName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9.:-]{0,252}$/, "host must be a host name or IP address");
/**
 * A host of the inventory (the `host` arg of host-scoped operators pins the try to it): one DNS
 * label, lower-case. The same rule as HOST_NAME in @svc/hosts (names.ts), repeated because the
 * operators do not depend on @svc/hosts; the router checks that the host exists.
 */
export const inventoryHost = z.string().regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, "host must be a host of the inventory: lower-case letters, digits and '-', 1 to 63");
export const userName = z.string().regex(/^[a-z_][a-z0-9_-]{0,31}$/, "user must be a POSIX user name");
/** One known_hosts line as ssh-keyscan prints it (`[127.0.0.1]:2222 ssh-ed25519 AAAA…`): three words, no newline. */
export const knownHostLine = z
  .string()
  .max(16_384)
  .regex(/^\S+ (ssh-|ecdsa-)\S+ \S+$/, "host key must be a known_hosts line: HOST TYPE KEY");
/** A file path on the host: absolute or relative, no NUL, not an option look-alike. */
export const hostPath = z
  .string()
  .min(1)
  .max(4096)
  .refine((s) => !s.includes("\0"), "path must not contain NUL")
  .refine((s) => !s.startsWith("-"), "path must not start with '-'");
/** An absolute file path on the host: no '..' segment, no control characters (a boot ISO). */
export const absoluteHostPath = z
  .string()
  .max(4096)
  // eslint-disable-next-line no-control-regex -- control characters are what this rejects
  .regex(/^\/[^\x00-\x1f\x7f]+$/, "path must be absolute, without control characters")
  .refine((s) => !s.split("/").includes(".."), "path must not contain '..'");
/** A lower-case unicast MAC address. */
export const macAddress = z
  .string()
  .regex(/^([0-9a-f]{2}:){5}[0-9a-f]{2}$/, "MAC address must be six lower-case hex pairs, e.g. 52:54:00:12:34:56")
  .refine((s) => (parseInt(s.slice(0, 2), 16) & 1) === 0, "MAC address must be unicast (even first byte)");
export const seconds = (def: number, max = 86_400) => z.coerce.number().min(0).max(max).default(def);
