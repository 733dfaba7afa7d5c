import { createHash, createHmac } from "node:crypto";
import { appendFile, mkdir, readFile } from "node:fs/promises";
import { dirname } from "node:path";

/** One usable known_hosts line (comments, @cert-authority lines and garbage are skipped). */
export interface KnownHostEntry {
  revoked: boolean;
  patterns: string;
  keyType: string;
  /** Base64 of the public key blob, as in the file. */
  key: string;
}

/** Verdict for one presented key. */
export type HostKeyVerdict = { kind: "match" } | { kind: "unknown" } | { kind: "changed"; knownTypes: string[] } | { kind: "revoked" };

/** `host` for port 22, `[host]:port` otherwise: the name OpenSSH stores and looks up. */
export function hostKeyName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

/** Parse known_hosts text. */
export function parseKnownHosts(text: string): KnownHostEntry[] {
  const out: KnownHostEntry[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const f = line.split(/\s+/);
    let revoked = false;
    if (f[0]?.startsWith("@")) {
      if (f[0] === "@revoked") revoked = true;
      else continue; // @cert-authority: we do not do certificates
      f.shift();
    }
    const [patterns, keyType, key] = f;
    if (!patterns || !keyType || !key) continue;
    out.push({ revoked, patterns, keyType, key });
  }
  return out;
}

/** Does a known_hosts host field (pattern list or `|1|salt|hash`) name this host? */
export function entryMatchesHost(patterns: string, name: string): boolean {
  if (patterns.startsWith("|1|")) {
    const [, , salt, hash] = patterns.split("|");
    if (!salt || !hash) return false;
    return createHmac("sha1", Buffer.from(salt, "base64")).update(name).digest("base64") === hash;
  }
  let matched = false;
  for (const p of patterns.split(",")) {
    const negated = p.startsWith("!");
    if (globMatch(negated ? p.slice(1) : p, name)) {
      if (negated) return false;
      matched = true;
    }
  }
  return matched;
}

function globMatch(pattern: string, s: string): boolean {
  const re = pattern
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${re}$`, "i").test(s);
}

/** The key type inside an SSH public key blob (its first length-prefixed string). */
export function keyTypeOf(blob: Buffer): string {
  if (blob.length < 4) return "unknown";
  const n = blob.readUInt32BE(0);
  return blob.subarray(4, 4 + n).toString("latin1");
}

/** OpenSSH-style fingerprint: `ssh-ed25519 SHA256:...`. */
export function fingerprint(blob: Buffer): string {
  const h = createHash("sha256").update(blob).digest("base64").replace(/=+$/, "");
  return `${keyTypeOf(blob)} SHA256:${h}`;
}

/** Check a presented key blob against the entries for `name`. */
export function verifyHostKey(entries: KnownHostEntry[], name: string, blob: Buffer): HostKeyVerdict {
  const b64 = blob.toString("base64");
  const forHost = entries.filter((e) => entryMatchesHost(e.patterns, name));
  if (forHost.some((e) => e.revoked && e.key === b64)) return { kind: "revoked" };
  const pinned = forHost.filter((e) => !e.revoked);
  if (pinned.some((e) => e.key === b64)) return { kind: "match" };
  if (pinned.length === 0) return { kind: "unknown" };
  return { kind: "changed", knownTypes: [...new Set(pinned.map((e) => e.keyType))] };
}

/** Key types pinned for `name`, to offer the server those host-key algorithms first. */
export function knownKeyTypes(entries: KnownHostEntry[], name: string): string[] {
  return [...new Set(entries.filter((e) => !e.revoked && entryMatchesHost(e.patterns, name)).map((e) => e.keyType))];
}

/** Read a known_hosts file; a missing file is an empty one. */
export async function readKnownHosts(path: string): Promise<KnownHostEntry[]> {
  try {
    return parseKnownHosts(await readFile(path, "utf8"));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw e;
  }
}

/** Append a pinned key (trust on first use); creates the file 0600 and its directory 0700. */
export async function appendKnownHost(path: string, name: string, blob: Buffer): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  let prefix = "";
  try {
    const cur = await readFile(path, "utf8");
    if (cur.length > 0 && !cur.endsWith("\n")) prefix = "\n";
  } catch {
    // new file
  }
  await appendFile(path, `${prefix}${name} ${keyTypeOf(blob)} ${blob.toString("base64")}\n`, { mode: 0o600 });
}
