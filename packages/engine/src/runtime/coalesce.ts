/**
 * Per-key coalescing inside one process: while `fn` runs for a key, further requests only mark it
 * dirty (keeping the highest version), and `fn` runs once more when it finishes. Across processes,
 * the run's advisory lock serialises; this keeps one scheduler from piling up waiting connections.
 */
export function createCoalescer(fn: (key: string, version: number) => Promise<unknown>) {
  const inflight = new Map<string, { dirty: boolean; version: number; done: Promise<void> }>();
  return (key: string, version: number): Promise<void> => {
    const cur = inflight.get(key);
    if (cur) {
      cur.dirty = true;
      cur.version = Math.max(cur.version, version);
      return cur.done;
    }
    const entry = { dirty: false, version, done: Promise.resolve() };
    entry.done = (async () => {
      try {
        do {
          entry.dirty = false;
          await fn(key, entry.version);
        } while (entry.dirty);
      } finally {
        inflight.delete(key);
      }
    })();
    inflight.set(key, entry);
    return entry.done;
  };
}
