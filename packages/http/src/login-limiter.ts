/** Options of a LoginLimiter. */
export interface LoginLimiterOptions {
  /** Failed attempts allowed per client within `windowMs` before it is locked out. */
  maxFailures?: number;
  windowMs?: number;
  /** How long a locked-out client gets 429. */
  lockoutMs?: number;
  now?: () => number;
}

/**
 * Failed logins per client (its address): after maxFailures within the window, every request
 * with credentials answers 429 until the lockout ends. In memory, per process.
 */
export class LoginLimiter {
  private readonly failures = new Map<string, number[]>();
  private readonly lockedUntil = new Map<string, number>();
  private readonly max: number;
  private readonly windowMs: number;
  private readonly lockoutMs: number;
  private readonly now: () => number;

  constructor(o: LoginLimiterOptions = {}) {
    this.max = o.maxFailures ?? 10;
    this.windowMs = o.windowMs ?? 5 * 60_000;
    this.lockoutMs = o.lockoutMs ?? 5 * 60_000;
    this.now = o.now ?? Date.now;
  }

  /** Seconds until `client` may try again, or 0 when it may now. */
  retryAfter(client: string): number {
    const until = this.lockedUntil.get(client) ?? 0;
    const left = until - this.now();
    if (left <= 0) {
      this.lockedUntil.delete(client);
      return 0;
    }
    return Math.ceil(left / 1000);
  }

  /** Record a failed attempt; locks the client out when it reaches the limit. */
  fail(client: string): void {
    const t = this.now();
    const recent = (this.failures.get(client) ?? []).filter((x) => t - x < this.windowMs);
    recent.push(t);
    if (recent.length >= this.max) {
      this.lockedUntil.set(client, t + this.lockoutMs);
      this.failures.delete(client);
    } else this.failures.set(client, recent);
    // Bound memory under a spray of addresses: forget the oldest clients.
    if (this.failures.size > 10_000) this.failures.delete(this.failures.keys().next().value as string);
  }

  /** A successful login clears the client's failures. */
  succeed(client: string): void {
    this.failures.delete(client);
  }
}
