/**
 * Clean-up steps of a benchmark process, run in order, none waiting more than 15 s (a hung close
 * must not keep a server running). Ctrl-C or a SIGTERM runs them too, then exits 130.
 */
export function createCleanups(): {
  /** Run after the steps added so far. */
  push(...steps: (() => Promise<unknown>)[]): void;
  /** Run before the steps added so far (stop a process before removing its files). */
  unshift(step: () => Promise<unknown>): void;
  run: (onError: (e: unknown) => void) => Promise<void>;
} {
  const steps: (() => Promise<unknown>)[] = [];
  const run = async (onError: (e: unknown) => void) => {
    for (const step of steps.splice(0)) {
      let t: NodeJS.Timeout | undefined;
      await Promise.race([step(), new Promise((_, reject) => (t = setTimeout(() => reject(new Error("cleanup step timed out")), 15000)))]).catch(onError);
      clearTimeout(t);
    }
  };
  for (const sig of ["SIGINT", "SIGTERM"] as const) {
    process.once(sig, () => void run(() => undefined).then(() => process.exit(130)));
  }
  return { push: (...more) => void steps.push(...more), unshift: (step) => void steps.unshift(step), run };
}
