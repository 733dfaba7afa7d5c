import { createHmac, randomBytes } from "node:crypto";

/** Options of a VerifiedCredentials cache. */
export interface VerifiedCredentialsOptions {
  /** How long a verified header is trusted without the password hash being checked again. */
  ttlMs?: number;
  /** Entries kept at most (the oldest go first). */
  maxEntries?: number;
  now?: () => number;
}

interface Entry {
  name: string;
  /** The stored hash the password was verified against: a changed hash voids the entry. */
  passwordHash: string;
  expires: number;
}

/**
 * Basic credentials of configured users that passed the password hash (scrypt) recently, so that
 * a client sending the same header on every request pays the key derivation once per `ttlMs`
 * instead of on each request (N = 16,384: tens to hundreds of ms of CPU each). Entries are keyed
 * by an HMAC of the whole header under a random per-process key: neither the password nor an
 * unkeyed digest of it is kept. Only successes are kept; a wrong password is another header and is
 * checked in full, and an entry holds only while the user still has the hash it was verified against.
 */
export class VerifiedCredentials {
  private readonly key = randomBytes(32);
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;
  private readonly max: number;
  private readonly now: () => number;

  constructor(o: VerifiedCredentialsOptions = {}) {
    this.ttlMs = o.ttlMs ?? 5 * 60_000;
    this.max = o.maxEntries ?? 1000;
    this.now = o.now ?? Date.now;
  }

  private id(header: string): string {
    return createHmac("sha256", this.key).update(header, "utf8").digest("base64");
  }

  /** The user `header` was verified as, if that is recent and the user's hash is still `currentHash(name)`. */
  lookup(header: string, currentHash: (name: string) => string | undefined): string | undefined {
    const id = this.id(header);
    const e = this.entries.get(id);
    if (!e) return undefined;
    if (e.expires <= this.now() || currentHash(e.name) !== e.passwordHash) {
      this.entries.delete(id);
      return undefined;
    }
    return e.name;
  }

  /** Record that `header` verified as user `name` against `passwordHash`. */
  remember(header: string, name: string, passwordHash: string): void {
    const id = this.id(header);
    this.entries.delete(id);
    this.entries.set(id, { name, passwordHash, expires: this.now() + this.ttlMs });
    while (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as string);
  }

  get size(): number {
    return this.entries.size;
  }
}
