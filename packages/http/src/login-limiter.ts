import { isIPv6 } from "node:net";

/** Options of a LoginLimiter. */
export interface LoginLimiterOptions {
  /** Failed attempts allowed per client, and per account, within `windowMs` before it is locked out. */
  maxFailures?: number;
  windowMs?: number;
  /** How long a locked-out client or account gets 429. */
  lockoutMs?: number;
  now?: () => number;
}

/**
 * One login attempt: the client (its address) and the account it names, if any. Only an account
 * that exists is given (requireAuth leaves invented names out): counting those would let a spray
 * of made-up names fill the table and push a real account's count out.
 */
export interface LoginAttempt {
  client: string;
  account?: string;
}

// Bound memory under a spray of addresses or invented user names.
const MAX_KEYS = 10_000;
const MAX_ACCOUNT_LENGTH = 200;

/** Failures per key within a window, and the keys locked out until a time. */
class FailureCounter {
  private readonly failures = new Map<string, number[]>();
  private readonly lockedUntil = new Map<string, number>();

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
    private readonly lockoutMs: number,
  ) {}

  /** Milliseconds until `key` may try again at time `t`, or 0. */
  waitMs(key: string, t: number): number {
    const left = (this.lockedUntil.get(key) ?? 0) - t;
    if (left > 0) return left;
    this.lockedUntil.delete(key);
    return 0;
  }

  fail(key: string, t: number): void {
    const recent = (this.failures.get(key) ?? []).filter((x) => t - x < this.windowMs);
    recent.push(t);
    this.failures.delete(key); // re-inserted last: the oldest keys are forgotten first
    if (recent.length >= this.max) this.lockedUntil.set(key, t + this.lockoutMs);
    else this.failures.set(key, recent);
    forgetOldest(this.failures);
    forgetOldest(this.lockedUntil);
  }

  clear(key: string): void {
    this.failures.delete(key);
  }
}

function forgetOldest(m: Map<string, unknown>): void {
  if (m.size > MAX_KEYS) m.delete(m.keys().next().value as string);
}

/**
 * Failed logins counted per client (its address) and per account (OWASP: both). After maxFailures
 * within the window, the client, or the account from any client, answers 429 until the lockout
 * ends. A successful login clears only that account's failures: a holder of one valid login
 * cannot reset the client's count and keep guessing another account's password. In memory, per process.
 */
export class LoginLimiter {
  private readonly clients: FailureCounter;
  private readonly accounts: FailureCounter;
  private readonly now: () => number;

  constructor(o: LoginLimiterOptions = {}) {
    const max = o.maxFailures ?? 10;
    const windowMs = o.windowMs ?? 5 * 60_000;
    const lockoutMs = o.lockoutMs ?? 5 * 60_000;
    this.clients = new FailureCounter(max, windowMs, lockoutMs);
    this.accounts = new FailureCounter(max, windowMs, lockoutMs);
    this.now = o.now ?? Date.now;
  }

  /** Seconds until this attempt's client and account may both try again, or 0 when they may now. */
  retryAfter(a: LoginAttempt): number {
    const t = this.now();
    const account = accountKey(a);
    const left = Math.max(this.clients.waitMs(clientKey(a.client), t), account === undefined ? 0 : this.accounts.waitMs(account, t));
    return left > 0 ? Math.ceil(left / 1000) : 0;
  }

  /** Record a failed attempt against its client and its account; either is locked out at the limit. */
  fail(a: LoginAttempt): void {
    const t = this.now();
    this.clients.fail(clientKey(a.client), t);
    const account = accountKey(a);
    if (account !== undefined) this.accounts.fail(account, t);
  }

  /** A successful login clears its account's failures; the client's count stands. */
  succeed(a: LoginAttempt): void {
    const account = accountKey(a);
    if (account !== undefined) this.accounts.clear(account);
  }
}

/**
 * The key a client is counted under: an IPv4 address as it is (an IPv4-mapped IPv6 address as
 * its IPv4 one), an IPv6 address by its /64 (one site or host gets a whole /64, so each /128
 * counted alone would give an attacker 2^64 fresh clients).
 */
export function clientKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!isIPv6(address)) return address;
  const [head = "", tail = ""] = address.toLowerCase().split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  // An embedded IPv4 tail (::a.b.c.d) takes two groups; only the first four groups are kept.
  const rightGroups = right.flatMap((g) => (g.includes(".") ? ["0", "0"] : [g]));
  const groups = address.includes("::") ? [...left, ...Array<string>(8 - left.length - rightGroups.length).fill("0"), ...rightGroups] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

function accountKey(a: LoginAttempt): string | undefined {
  return a.account === undefined ? undefined : a.account.slice(0, MAX_ACCOUNT_LENGTH);
}
