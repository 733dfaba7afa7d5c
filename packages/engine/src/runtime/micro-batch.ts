/**
 * Collects calls made in the same tick (up to `max`) and runs them as one batch: concurrent tries in
 * a worker share one statement, and so one commit, instead of paying one each.
 */
export function microBatch<I, O>(run: (items: I[]) => Promise<O[]>, max = 64): (item: I) => Promise<O> {
  let pending: { item: I; resolve: (o: O) => void; reject: (e: unknown) => void }[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    const batch = pending;
    pending = [];
    run(batch.map((p) => p.item)).then(
      (out) => batch.forEach((p, i) => p.resolve(out[i]!)),
      (e) => batch.forEach((p) => p.reject(e)),
    );
  };
  return (item) =>
    new Promise<O>((resolve, reject) => {
      pending.push({ item, resolve, reject });
      if (pending.length >= max) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    });
}
