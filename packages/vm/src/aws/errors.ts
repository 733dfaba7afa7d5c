import { NonRetryableError, UnavailableError } from "@svc/errors";

/** The provider refused (its own error name and message); not retried. */
export class CloudApiError extends NonRetryableError {}
/** The provider could not be reached, or a waiter ran out of time. */
export class CloudUnavailableError extends UnavailableError {}

/** An SDK or API error as one line with the provider's own code and message (never the request). */
export function cloudError(what: string, e: unknown): Error {
  if (e instanceof CloudApiError || e instanceof CloudUnavailableError) return e;
  const err = e as { name?: string; Code?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const code = err.Code ?? err.name ?? "Error";
  const msg = `${what}: ${code}: ${err.message ?? String(e)}`;
  return err.$metadata?.httpStatusCode ? new CloudApiError(msg) : new CloudUnavailableError(msg);
}

/** Poll `probe` until it yields a value, bounded by `timeoutMs` and the signal. */
export async function waitUntil<T>(probe: () => Promise<T | undefined>, o: { what: string; timeoutMs: number; pollMs: number; signal?: AbortSignal }): Promise<T> {
  const deadline = Date.now() + o.timeoutMs;
  for (;;) {
    if (o.signal?.aborted) throw new CloudUnavailableError(`${o.what}: cancelled`);
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() + o.pollMs > deadline) throw new CloudUnavailableError(`${o.what}: not reached within ${Math.round(o.timeoutMs / 1000)} s`);
    await new Promise((r) => setTimeout(r, o.pollMs));
  }
}
