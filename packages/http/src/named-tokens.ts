import { createHash, timingSafeEqual } from "node:crypto";
import type { Role } from "./roles";

/** A bearer token of its own for one caller (a tool server): its name is the actor, its role what it may do. */
export interface NamedToken {
  name: string;
  role: Role;
  token: string;
}

const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();

/** The caller a `Bearer` header names among `tokens` (compared in constant time), or null. */
export function namedTokenPrincipal(header: string | undefined, tokens: readonly NamedToken[] | undefined): { name: string; role: Role } | null {
  const m = header && tokens?.length ? /^bearer\s+(.+)$/i.exec(header.trim()) : null;
  if (!m) return null;
  const given = digest(m[1]!);
  // Every token is compared: which one matched does not show in the time taken.
  let found: NamedToken | undefined;
  for (const t of tokens!) if (timingSafeEqual(given, digest(t.token)) && !found) found = t;
  return found ? { name: found.name, role: found.role } : null;
}
