export interface CoalescerOptions {
  /**
   * Default true: a request that joins a pass in flight resolves when the extra pass it asked for
   * is done. False: it resolves at once; the caller that started the pass stands for it (its queue
   * job stays in flight until every extra pass is done, and a crash redelivers that job), so a
   * burst of events for one key no longer holds one queue slot each while the pass runs.
   */
  joinersWait?: boolean;
}

/**
 * Per-key coalescing inside one process: while `fn` runs for a key, further requests only mark it
 * dirty (keeping the highest version), and `fn` runs once more when it finishes. Across processes,
 * the run's advisory lock serialises; this keeps one scheduler from piling up waiting connections.
 */
export function createCoalescer(fn: (key: string, version: number) => Promise<unknown>, opts: CoalescerOptions = {}) {
  const inflight = new Map<string, { dirty: boolean; version: number; done: Promise<void> }>();
  return (key: string, version: number): Promise<void> => {
    const cur = inflight.get(key);
    if (cur) {
      cur.dirty = true;
      cur.version = Math.max(cur.version, version);
      return opts.joinersWait === false ? Promise.resolve() : cur.done;
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
