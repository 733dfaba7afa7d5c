/** Sleep that ends early (rejecting with the reason) when the task is cancelled. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason ?? new Error("aborted"));
    const t = setTimeout(() => (signal.removeEventListener("abort", onAbort), resolve()), ms);
    const onAbort = () => (clearTimeout(t), reject(signal.reason ?? new Error("aborted")));
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
