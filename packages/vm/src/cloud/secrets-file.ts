import { execFile } from "node:child_process";
import { createDecipheriv, createHmac, pbkdf2Sync, timingSafeEqual } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { promisify } from "node:util";
import { NonRetryableError } from "@svc/errors";
import { parse } from "yaml";

/** The secrets file's keys and values (`vault_*`); never logged, never in a row or a response. */
export type Secrets = Readonly<Record<string, unknown>>;

/** Where the secrets are: `config.secretsFile` (ansible-vault, or plain YAML) and `config.vaultPasswordFile`. */
export interface SecretsFileSettings {
  secretsFile: string;
  vaultPasswordFile?: string;
}

/** The secrets file cannot be read or opened; the message names the file and the setting, never a value. */
export class SecretsFileError extends NonRetryableError {}

const HEADER = /^\$ANSIBLE_VAULT;(1\.[12]);AES256(?:;[^\n]*)?$/;

/**
 * Decrypt an ansible-vault 1.1/1.2 AES256 text: PBKDF2-SHA256 (10000 rounds) of the password and the
 * salt gives the AES-256-CTR key, the HMAC-SHA256 key and the counter; the HMAC is checked first.
 */
export function decryptVault(text: string, password: string): string {
  const [head, ...rest] = text.trim().split(/\r?\n/);
  if (!head || !HEADER.test(head.trim())) throw new SecretsFileError("not an ansible-vault AES256 file (no $ANSIBLE_VAULT;1.1;AES256 header)");
  const body = Buffer.from(rest.join("").replace(/\s+/g, ""), "hex").toString("latin1").split("\n");
  if (body.length !== 3 || !body.every((p) => /^[0-9a-f]+$/i.test(p))) throw new SecretsFileError("the vault body is damaged (salt, HMAC and ciphertext expected)");
  const [salt, mac, data] = body.map((h) => Buffer.from(h, "hex")) as [Buffer, Buffer, Buffer];
  const derived = pbkdf2Sync(Buffer.from(password, "utf8"), salt, 10_000, 80, "sha256");
  const want = createHmac("sha256", derived.subarray(32, 64)).update(data).digest();
  if (want.length !== mac.length || !timingSafeEqual(want, mac)) throw new SecretsFileError("the vault password does not open it (HMAC mismatch)");
  const d = createDecipheriv("aes-256-ctr", derived.subarray(0, 32), derived.subarray(64, 80));
  const plain = Buffer.concat([d.update(data), d.final()]);
  const pad = plain[plain.length - 1] ?? 0;
  if (pad < 1 || pad > 16 || pad > plain.length) throw new SecretsFileError("the vault body is damaged (bad padding)");
  return plain.subarray(0, plain.length - pad).toString("utf8");
}

/** The vault password: the file's text stripped, or what it prints when it is executable (as ansible does). */
async function vaultPassword(file: string): Promise<string> {
  const st = await stat(file);
  if (st.mode & 0o111) {
    const { stdout } = await promisify(execFile)(file, [], { timeout: 30_000, maxBuffer: 64 * 1024 });
    return stdout.trim();
  }
  return (await readFile(file, "utf8")).trim();
}

async function load(s: SecretsFileSettings): Promise<Secrets> {
  const where = `the secrets file ${s.secretsFile} (SVC_SECRETS_FILE)`;
  let text: string;
  try {
    text = await readFile(s.secretsFile, "utf8");
  } catch (e) {
    throw new SecretsFileError(`cannot read ${where}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (text.startsWith("$ANSIBLE_VAULT;")) {
    if (!s.vaultPasswordFile) throw new SecretsFileError(`${where} is vault-encrypted and SVC_VAULT_PASSWORD_FILE is not set`);
    let password: string;
    try {
      password = await vaultPassword(s.vaultPasswordFile);
    } catch (e) {
      throw new SecretsFileError(`cannot read the vault password file ${s.vaultPasswordFile} (SVC_VAULT_PASSWORD_FILE): ${(e as NodeJS.ErrnoException).code ?? "failed"}`);
    }
    try {
      text = decryptVault(text, password);
    } catch (e) {
      throw new SecretsFileError(`${where}: ${(e as Error).message}`);
    }
  }
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (e) {
    // The YAML error quotes the text: say only where it is.
    const pos = (e as { linePos?: { line: number }[] }).linePos?.[0]?.line;
    throw new SecretsFileError(`${where} is not valid YAML${pos ? ` (line ${pos})` : ""}`);
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== "object" || Array.isArray(doc)) throw new SecretsFileError(`${where} is not a mapping of keys to values`);
  return Object.freeze({ ...(doc as Record<string, unknown>) });
}

const cache = new Map<string, Promise<Secrets>>();

/** The secrets file's keys, decrypted once per process (a failed read is tried again next time). */
export function readSecretsFile(s: SecretsFileSettings): Promise<Secrets> {
  const key = `${s.secretsFile}\0${s.vaultPasswordFile ?? ""}`;
  let p = cache.get(key);
  if (!p) {
    p = load(s);
    cache.set(key, p);
    p.catch(() => cache.delete(key));
  }
  return p;
}

/** A lazy source of the secrets from the settings: the file is read only when a host needs it. */
export function secretsFromConfig(c: SecretsFileSettings): () => Promise<Secrets> {
  return () => readSecretsFile({ secretsFile: c.secretsFile, ...(c.vaultPasswordFile ? { vaultPasswordFile: c.vaultPasswordFile } : {}) });
}
