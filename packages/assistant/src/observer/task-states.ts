/** A run's task instances by the states the observer reports on. */
export function tasksIn<T extends { state: string | null }>(tasks: readonly T[]): { failed: T[]; upstream: T[]; retrying: T[] } {
  return {
    failed: tasks.filter((t) => t.state === "failed"),
    upstream: tasks.filter((t) => t.state === "upstream_failed"),
    retrying: tasks.filter((t) => t.state === "up_for_retry"),
  };
}
