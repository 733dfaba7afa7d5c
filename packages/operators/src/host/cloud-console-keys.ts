import { NonRetryableError } from "@svc/errors";
import { keyFingerprint, type VmDriver } from "@svc/vm";
import type { OperatorContext } from "../types";

// A cloud instance's host keys known before the first contact: the ones cloud-init printed to the
// provider's console (EC2's GetConsoleOutput). Found, they are pinned before svc connects and a
// server offering another key is refused; not found within the bound, the keys are trusted on
// first use and the log says so.

/** How long the console is read before the first contact, at most (EC2 posts a boot's output a little after it is printed). */
export const CONSOLE_KEYS_WAIT_MS = 120_000;

/** What is known of an instance's keys before contact: `keys` to pin, or only `fingerprints` to check the offered key against; null: nothing (first use). */
export type ExpectedKeys = { keys: string[]; fingerprints: string[]; source: string } | null;

const types = (keys: string[]) => [...new Set(keys.map((k) => k.split(" ")[0]))].join(", ");

/**
 * Read the provider's console for the instance's host keys, up to `waitMs`. A driver without a
 * console svc can read, or a console without them, gives null (the caller trusts on first use).
 */
export async function readConsoleKeys(driver: VmDriver, name: string, waitMs: number, ctx: OperatorContext): Promise<ExpectedKeys> {
  if (!driver.consoleHostKeys) return null;
  ctx.log(`reading the host keys cloud-init prints to the ${driver.name} console of VM ${name} (up to ${Math.round(waitMs / 1000)} s) before contacting it`, "system");
  const c = await driver.consoleHostKeys(name, { waitMs, signal: ctx.signal });
  if (c.keys.length) {
    ctx.log(`host keys read from ${c.source}: ${types(c.keys)}; they are pinned before the first contact and SSH is checked against them`, "system");
    return c;
  }
  if (c.fingerprints.length) {
    ctx.log(`host key fingerprints read from ${c.source} (no keys printed): the key offered at first contact is checked against ${c.fingerprints.join(", ")}`, "system");
    return c;
  }
  ctx.log(
    `no SSH host keys in ${c.source} within ${Math.round(waitMs / 1000)} s (cloud-init has not printed them, or does not print them to the console): the keys are trusted on first use`,
    "system",
  );
  return null;
}

/** The pinned known_hosts lines of the console's keys for `address`. */
export const pinnedLines = (address: string, keys: string[]) => keys.map((k) => `${address} ${k}`);

/** Refuse keys an instance offered that its console did not print (by key, else by fingerprint). */
export function checkOffered(name: string, address: string, offered: string[], expected: NonNullable<ExpectedKeys>): void {
  const bare = offered.map((l) => l.split(" ").slice(-2).join(" "));
  const known = expected.keys.length ? bare.filter((k) => expected.keys.includes(k)) : bare.filter((k) => expected.fingerprints.includes(keyFingerprint(k)));
  if (bare.length && known.length === bare.length) return;
  throw hostKeyMismatch(name, address, `it offered ${bare.map(keyFingerprint).join(", ") || "no key"}`, expected);
}

/** The refusal of an instance whose key is not the one its console printed: nothing more is done with it. */
export function hostKeyMismatch(name: string, address: string, what: string, expected: NonNullable<ExpectedKeys>): NonRetryableError {
  const printed = expected.keys.length ? expected.keys.map(keyFingerprint) : expected.fingerprints;
  return new NonRetryableError(
    `host key mismatch for VM '${name}' at ${address}:22: ${what}, but ${expected.source} printed ${printed.join(", ")}; refusing to connect (another machine answers at that address, or something sits in between). Nothing was pinned.`,
  );
}
