import type { Db } from "./connection";

/** The outcome of claiming a key: new, or already used (ref null while its first request still runs). */
export type IdempotencyClaim = { claimed: true } | { claimed: false; ref: string | null };

/** Claim `key` in `scope`; exactly one concurrent caller gets `claimed: true`. */
export async function claimIdempotencyKey(db: Db, scope: string, key: string): Promise<IdempotencyClaim> {
  const inserted = await db
    .insertInto("idempotency_key")
    .values({ scope, key })
    .onConflict((oc) => oc.doNothing())
    .returning("key")
    .executeTakeFirst();
  if (inserted) return { claimed: true };
  const row = await db.selectFrom("idempotency_key").select("ref").where("scope", "=", scope).where("key", "=", key).executeTakeFirst();
  return { claimed: false, ref: row?.ref ?? null };
}

/** Record what the request that claimed `key` made. */
export async function setIdempotencyRef(db: Db, scope: string, key: string, ref: string): Promise<void> {
  await db.updateTable("idempotency_key").set({ ref }).where("scope", "=", scope).where("key", "=", key).execute();
}

/** Give a key up (its request failed before making anything), so a retry may claim it again. */
export async function releaseIdempotencyKey(db: Db, scope: string, key: string): Promise<void> {
  await db.deleteFrom("idempotency_key").where("scope", "=", scope).where("key", "=", key).where("ref", "is", null).execute();
}
