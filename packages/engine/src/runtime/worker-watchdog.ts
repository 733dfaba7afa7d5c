import type { Queue, Worker } from "bullmq";

export interface WatchdogOptions {
  /** How often the queue's waiting count is read. */
  intervalMs: number;
  /** How long jobs may wait while the worker takes none before it is made anew. */
  staleMs: number;
  onRestart: (fields: { waiting: number; idleMs: number }) => void;
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
  const timer = setInterval(() => {
    if (checking) return;
    checking = true;
    void queue
      .getWaitingCount()
      .then((waiting) => {
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
      .catch(() => undefined) // Redis unreachable: nothing to judge until it answers again
      .finally(() => (checking = false));
  }, o.intervalMs);
  timer.unref();
  return { current: () => worker, stop: () => clearInterval(timer) };
}
