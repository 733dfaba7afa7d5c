import { createHash } from "node:crypto";
import { claimIdempotencyKey, releaseIdempotencyKey, setIdempotencyRef, type Db } from "@svc/db";
import { BadRequestError, SvcError } from "@svc/errors";

/** What an intent request does about its Idempotency-Key. */
export interface IntentIdempotency {
  /** The flow an earlier request with this key made: answer with it, make nothing. */
  existing?: string;
  /** Record the flow this request made. */
  record(flowId: string): Promise<void>;
  /** Give the key up when this request made nothing. */
  release(): Promise<void>;
}

const NONE: IntentIdempotency = { record: async () => undefined, release: async () => undefined };

/**
 * `Idempotency-Key` on POST /orchestrator/intent, per caller: the same key gives the same flow;
 * a retry while the first request still runs gets 409.
 */
export async function intentIdempotency(db: Db, key: string | undefined, actor: string): Promise<IntentIdempotency> {
  if (key === undefined) return NONE;
  if (!/^[\x21-\x7e]{1,200}$/.test(key)) throw new BadRequestError("Idempotency-Key: 1 to 200 visible ASCII characters", { field: "Idempotency-Key" });
  const scope = `intent:${actor}`;
  const hashed = createHash("sha256").update(key).digest("hex");
  const claim = await claimIdempotencyKey(db, scope, hashed);
  if (!claim.claimed) {
    if (claim.ref) return { ...NONE, existing: claim.ref };
    throw new SvcError("conflict", "A request with this Idempotency-Key is still being handled; retry shortly");
  }
  return { record: (flowId) => setIdempotencyRef(db, scope, hashed, flowId), release: () => releaseIdempotencyKey(db, scope, hashed) };
}
