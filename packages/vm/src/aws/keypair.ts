import { createHash, createPublicKey } from "node:crypto";
import { DescribeKeyPairsCommand, ImportKeyPairCommand, type EC2Client } from "@aws-sdk/client-ec2";
import { VmInputError } from "../errors";

/** The SSH wire blob of an authorized_keys line (ssh-ed25519 or ssh-rsa). */
function blobOf(line: string): { type: string; blob: Buffer } {
  const m = /^(ssh-ed25519|ssh-rsa) ([A-Za-z0-9+/]+={0,3})(\s.*)?$/.exec(line.trim());
  if (!m) throw new VmInputError("an AWS key pair takes an ssh-ed25519 or ssh-rsa public key");
  return { type: m[1]!, blob: Buffer.from(m[2]!, "base64") };
}

/** The fields of an SSH wire blob (length-prefixed strings). */
function fields(blob: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i + 4 <= blob.length;) {
    const n = blob.readUInt32BE(i);
    out.push(blob.subarray(i + 4, i + 4 + n));
    i += 4 + n;
  }
  return out;
}

const b64url = (b: Buffer) => b.toString("base64url");

/** The public key as DER SubjectPublicKeyInfo (what EC2 and compatible APIs hash for imported keys). */
function spkiOf(type: string, blob: Buffer): Buffer {
  const f = fields(blob);
  const jwk =
    type === "ssh-ed25519"
      ? { kty: "OKP", crv: "Ed25519", x: b64url(f[1]!) }
      : { kty: "RSA", e: b64url(f[1]!.subarray(f[1]![0] === 0 ? 1 : 0)), n: b64url(f[2]!.subarray(f[2]![0] === 0 ? 1 : 0)) };
  return createPublicKey({ key: jwk, format: "jwk" }).export({ type: "spki", format: "der" });
}

/**
 * Every form a provider may give this key's fingerprint in: MD5 or SHA-256, of the SSH blob or of
 * the DER key, hex with colons or base64 (EC2 gives MD5 of the DER key for imported RSA keys and
 * SHA-256 base64 for ED25519; compatible APIs differ).
 */
export function keyFingerprints(line: string): Set<string> {
  const { type, blob } = blobOf(line);
  const out = new Set<string>();
  for (const data of [blob, spkiOf(type, blob)]) {
    for (const alg of ["md5", "sha256"]) {
      const d = createHash(alg).update(data).digest();
      out.add(d.toString("hex").match(/../g)!.join(":"));
      out.add(d.toString("base64"));
      out.add(d.toString("base64").replace(/=+$/, ""));
    }
  }
  return out;
}

/** The key pair holding this public key: found by its fingerprint, else imported once as `svc-<sha256 prefix>`. */
export async function ensureKeyPair(ec2: EC2Client, publicKey: string): Promise<{ name: string; imported: boolean }> {
  const prints = keyFingerprints(publicKey);
  const pairs = (await ec2.send(new DescribeKeyPairsCommand({}))).KeyPairs ?? [];
  const found = pairs.find((k) => k.KeyFingerprint && k.KeyName && prints.has(k.KeyFingerprint));
  if (found) return { name: found.KeyName!, imported: false };
  const name = `svc-${createHash("sha256").update(blobOf(publicKey).blob).digest("hex").slice(0, 16)}`;
  await ec2.send(
    new ImportKeyPairCommand({
      KeyName: name,
      PublicKeyMaterial: Buffer.from(publicKey.trim()),
      TagSpecifications: [{ ResourceType: "key-pair", Tags: [{ Key: "managed-by", Value: "svc" }] }],
    }),
  );
  return { name, imported: true };
}
