import type { TaskDefinition } from "@svc/dags";

/** Whether a failed try may be retried: Airflow's `try_number <= max_tries`. */
export function canRetry(tryNumber: number, maxTries: number): boolean {
  return tryNumber <= maxTries;
}

/** Delay before the try after `tryNumber`: fixed, or doubling per try up to max_retry_delay. */
export function retryDelayMs(task: Pick<TaskDefinition, "retry_delay_ms" | "retry_exponential_backoff" | "max_retry_delay_ms">, tryNumber: number): number {
  if (!task.retry_exponential_backoff) return task.retry_delay_ms;
  const exp = task.retry_delay_ms * 2 ** Math.max(0, tryNumber - 1);
  return Math.min(exp, task.max_retry_delay_ms);
}

/** What a failed try becomes: up for retry after the task's delay, or failed for good. */
export type FailureDecision = { state: "up_for_retry"; error: string; delayMs: number; nextRetryAt: Date } | { state: "failed"; error: string };

/**
 * The retry policy: a retryable error with tries left is retried after the task's delay (fixed or
 * doubling, capped); a non-retryable error, or the last try, fails the task.
 */
export function decideFailure(
  error: string,
  retryable: boolean,
  task: Pick<TaskDefinition, "retry_delay_ms" | "retry_exponential_backoff" | "max_retry_delay_ms">,
  tryNumber: number,
  maxTries: number,
  now: Date,
): FailureDecision {
  if (!retryable || !canRetry(tryNumber, maxTries)) return { state: "failed", error };
  const delayMs = retryDelayMs(task, tryNumber);
  return { state: "up_for_retry", error, delayMs, nextRetryAt: new Date(now.getTime() + delayMs) };
}
