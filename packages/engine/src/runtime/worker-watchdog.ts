import type { Queue, Worker } from "bullmq";

export interface WatchdogOptions {
  /** How often the queue's waiting count is read. */
  intervalMs: number;
  /** How long jobs may wait while the worker takes none before it is made anew. */
  staleMs: number;
  onRestart: (fields: { waiting: number; idleMs: number }) => void;
  /** Called when the waiting count could not be read (an error, or no answer within intervalMs). */
  onUnreadable?: (fields: { err: string; unreadableMs: number }) => void;
}

/**
 * Keeps a BullMQ worker taking jobs. After a Redis failover a worker can stay "running" while its
 * blocking connection has ended for good and takes nothing (bullmq#4378, #3088): when its queue has
 * had waiting jobs for `staleMs` and the worker started, finished or failed none meanwhile, the
 * worker is closed (forced: its jobs come back as stalled, and what they do is idempotent) and made
 * anew. The waiting count is read with the queue's own connection, not the worker's.
 */
export function superviseWorker(make: () => Worker, queue: Queue, o: WatchdogOptions): { current(): Worker; stop(): void } {
  let lastActivity = Date.now();
  const touch = () => void (lastActivity = Date.now());
  const start = () => {
    const w = make();
    for (const ev of ["active", "completed", "failed"] as const) w.on(ev, touch);
    return w;
  };
  let worker = start();
  let checking = false;
  let readableAt = Date.now();
  const timer = setInterval(() => {
    if (checking) return;
    checking = true;
    // A read that never answers (a connection stuck after a failover) must not stop the checks.
    let expire: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      expire = setTimeout(() => reject(new Error(`no answer within ${o.intervalMs} ms`)), o.intervalMs);
    });
    void Promise.race([queue.getWaitingCount(), deadline])
      .then((waiting) => {
        readableAt = Date.now();
        const idleMs = Date.now() - lastActivity;
        if (waiting === 0) return touch();
        if (idleMs < o.staleMs) return;
        o.onRestart({ waiting, idleMs });
        const old = worker;
        worker = start();
        touch();
        // A worker stuck on a dead connection may never finish closing: not awaited.
        void old.close(true).catch(() => undefined);
      })
      // Redis unreachable: nothing to judge until it answers again; said, so a stall explains itself.
      .catch((e: Error) => o.onUnreadable?.({ err: e.message, unreadableMs: Date.now() - readableAt }))
      .finally(() => {
        clearTimeout(expire);
        checking = false;
      });
  }, o.intervalMs);
  timer.unref();
  return { current: () => worker, stop: () => clearInterval(timer) };
}
