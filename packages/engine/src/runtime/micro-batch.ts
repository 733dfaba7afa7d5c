export interface MicroBatchOptions {
  /** Largest batch; a full batch is sent at once when a slot is free. */
  max?: number;
  /** Batches running at the same time. While all are busy, new calls wait and join the next batch. */
  maxInFlight?: number;
  /**
   * While a batch is in flight, a further one goes out only once this many calls wait (default 1:
   * at once). Higher values make batches bigger under load, and so fewer round trips, while an idle
   * system still sends a call on the next tick.
   */
  eagerAt?: number;
}

/**
 * Group commit: calls made while earlier batches are still running (and calls of the same tick)
 * are collected and run as one batch. When the database is idle a call goes out on the next tick,
 * so an idle system pays no latency; under load the batches grow by themselves, and concurrent
 * tries share one statement, and so one round trip and one commit, instead of paying one each.
 */
export function microBatch<I, O>(run: (items: I[]) => Promise<O[]>, opts: MicroBatchOptions | number = {}): (item: I) => Promise<O> {
  const { max = 64, maxInFlight = 1, eagerAt = 1 } = typeof opts === "number" ? { max: opts } : opts;
  const pending: { item: I; resolve: (o: O) => void; reject: (e: unknown) => void }[] = [];
  let scheduled = false;
  let inFlight = 0;
  const flush = () => {
    scheduled = false;
    while (pending.length && inFlight < maxInFlight && (inFlight === 0 || pending.length >= eagerAt)) {
      const batch = pending.splice(0, max);
      inFlight++;
      run(batch.map((p) => p.item))
        .then(
          (out) => batch.forEach((p, i) => p.resolve(out[i]!)),
          (e) => batch.forEach((p) => p.reject(e)),
        )
        .finally(() => {
          inFlight--;
          schedule();
        });
    }
  };
  const schedule = () => {
    if (!scheduled && pending.length) {
      scheduled = true;
      setImmediate(flush);
    }
  };
  return (item) =>
    new Promise<O>((resolve, reject) => {
      pending.push({ item, resolve, reject });
      schedule();
    });
}
