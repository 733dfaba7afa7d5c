import { z } from "zod";

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** The variables of the resource bounds and the graceful stop (merged into the config's schema). */
export const LIMITS_ENV = {
  SVC_LOG_MAX_BYTES_PER_TRY: int(1024, 1024 ** 3).default(16 * 1024 * 1024),
  SVC_MAX_OPEN_STREAMS: int(1, 100_000).default(200),
  SVC_STOP_GRACE_MS: int(0, 3_600_000).default(30_000),
};

/** Bounds on what one process holds, and how long a stop may take. */
export interface SvcLimits {
  /** Log bytes stored per try; later lines are counted, not stored (SVC_LOG_MAX_BYTES_PER_TRY). */
  readonly logMaxBytesPerTry: number;
  /** Server-Sent Event streams open at once per HTTP process; more get 503 (SVC_MAX_OPEN_STREAMS). */
  readonly maxOpenStreams: number;
  /**
   * On SIGTERM, how long running tries and requests may take before they are handed back or cut;
   * the process exits within this plus 5 s whatever hangs (SVC_STOP_GRACE_MS).
   */
  readonly stopGraceMs: number;
}

type LimitsEnv = { [K in keyof typeof LIMITS_ENV]: z.infer<(typeof LIMITS_ENV)[K]> };

export function limitsOf(e: LimitsEnv): SvcLimits {
  return { logMaxBytesPerTry: e.SVC_LOG_MAX_BYTES_PER_TRY, maxOpenStreams: e.SVC_MAX_OPEN_STREAMS, stopGraceMs: e.SVC_STOP_GRACE_MS };
}
