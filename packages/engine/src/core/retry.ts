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
