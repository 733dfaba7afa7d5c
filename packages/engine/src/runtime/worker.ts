import { setMaxListeners } from "node:events";
import { Worker } from "bullmq";
import { createRedis, parseTaskJob, QUEUE_NAMES, stallOptions, type TaskJob } from "@svc/queue";
import type { ClaimedTry } from "./task-claim";
import type { RuntimeDeps } from "./deps";
import { executeTry } from "./execute-try";
import { instantHandOff, landsSoon, mayHop, slotHandOff, type SlotNext } from "./hand-off";
import { startHeartbeat } from "./heartbeat";
import { acquireTryBatcher } from "./task-claim";
import { leafChecks } from "./leaf-checks";
import { WorkerStoppingError } from "./requeue-try";
import { startHostWorkers } from "./host-workers";
import { createCoalescer } from "./coalesce";
import { evaluateRun } from "./evaluate-run";
import { settleDeferred } from "./run-changed";

export interface EngineWorker {
  /**
   * Stop taking jobs and let running tries finish for `graceMs` (default SVC_STOP_GRACE_MS); the
   * ones still running then are cancelled and handed back: queued again at once for another worker,
   * without using one of the task's retries.
   */
  close(graceMs?: number): Promise<void>;
}

const NOT_COMMITTED = "try outcome could not be committed; the try stays running until this worker stops, then it is reaped as a zombie and retried";

/** Runs a worker process evaluates at once (after outcomes); more wait their turn. */
const EVALUATIONS = 2;

/** Run at most `n` of the given tasks at once, the others in the order they came. */
function limiter(n: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (active >= n) await new Promise<void>((r) => waiting.push(r));
    else active++;
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}

/** Consume the `tasks` queue with the configured concurrency; heartbeat for zombie detection. */
export function startWorker(baseDeps: RuntimeDeps): EngineWorker {
  const batcher = acquireTryBatcher(baseDeps.config.databaseUrl);
  // The worker evaluates the run of an outcome that may change a decision itself, one pass per run
  // at a time in this process (as the scheduler does), and enqueues the next tries directly.
  // At most EVALUATIONS at a time: a burst of run ends would otherwise open a connection each,
  // and every new Postgres backend pays its catalog caches and plpgsql compilation again.
  const slot = limiter(EVALUATIONS);
  const evaluate = createCoalescer((key, version) => {
    const [dagId, runId] = JSON.parse(key) as [string, string];
    return slot(() => evaluateRun(deps, dagId, runId, version));
  });
  const deps: RuntimeDeps = {
    ...baseDeps,
    tries: baseDeps.tries ?? batcher.tries,
    leafChecks: leafChecks(),
    evaluate: (dagId, runId, minVersion) => evaluate(JSON.stringify([dagId, runId]), minVersion),
  };
  const settle = (job: TaskJob) => settleDeferred(deps, job);
  // Commits of finished tries, going on after their slot took the next job; bounded, so a slow
  // database slows the slots down instead of piling up outcomes in memory.
  const finishing = new Set<Promise<unknown>>();
  const maxFinishing = deps.config.worker.concurrency * 4;
  const detach = (p: Promise<unknown>) => {
    const tracked: Promise<unknown> = p.catch((e) => deps.logger.error({ err: String(e) }, NOT_COMMITTED)).finally(() => finishing.delete(tracked));
    finishing.add(tracked);
  };
  const connection = createRedis(deps.config.redisUrl);
  // One signal for every try of this worker: aborted when a stop's grace period runs out (the tries hand themselves back).
  const stopping = new AbortController();
  setMaxListeners(0, stopping.signal); // one listener per running try, not a leak
  let running = 0;
  let stoppingNow = false;
  const isStopping = () => stoppingNow;
  const begin = (j: TaskJob) => deps.leafChecks!.begin(j);
  /** A try run beside the slots: an instant one, or a kept hop whose claim landed after its slot went on. */
  const beside = (j: TaskJob, claimed?: ClaimedTry) => {
    begin(j);
    detach(
      executeTry(deps, j, stopping.signal, undefined, claimed)
        .catch((e) => deps.logger.error({ ...j, err: String(e) }, "try execution error"))
        .finally(() => settle(j)),
    );
  };
  deps.handOff = instantHandOff(deps, beside, isStopping);
  /**
   * One try in a slot, its leaf check begun. A try of the tasks queue (`chain`) whose success may
   * queue plain downstream tries waits for its commit, and returns the claimed downstream its round
   * kept for this slot (slotHandOff), which the slot runs next; any other commit goes on detached.
   */
  const runInSlot = async ({ job: data, claimed }: SlotNext, chain: boolean): Promise<SlotNext | undefined> => {
    const slot = chain && !stoppingNow && mayHop(data) ? slotHandOff(deps, deps.handOff!, begin, isStopping, (n) => beside(n.job, n.claimed)) : undefined;
    let waited: Promise<unknown> | undefined;
    let detached = false;
    try {
      const slotDeps = slot ? { ...deps, handOff: slot.handOff, keepHop: slot.keepHop } : deps;
      const commit = (p: Promise<unknown>, hops: boolean) => {
        if (slot && hops) waited = p;
        else {
          detached = true;
          detach(p.finally(() => settle(data)));
        }
      };
      await executeTry(slotDeps, data, stopping.signal, commit, claimed);
      if (waited && !(await landsSoon(waited, (e) => deps.logger.error({ ...data, err: String(e) }, NOT_COMMITTED)))) {
        // A commit retrying while the database is away goes on without the slot, which keeps nothing.
        slot!.close();
        detached = true;
        detach(waited.finally(() => settle(data)));
      }
    } catch (e) {
      // Never fail the BullMQ job: state lives in Postgres; reconciliation/zombie handling recover.
      deps.logger.error({ ...data, err: String(e) }, "try execution error");
    } finally {
      if (!detached) await settle(data);
    }
    return slot?.kept();
  };
  const processor = (chain: boolean) => async (job: { data: unknown }) => {
    let next: SlotNext | undefined = { job: parseTaskJob(job.data) };
    running++;
    begin(next.job);
    try {
      while (next) next = await runInSlot(next, chain);
      while (finishing.size > maxFinishing) await Promise.race(finishing);
    } finally {
      running--;
    }
  };
  // A job taken by a worker that died before claiming its try comes back once its lock lapses
  // (stallOptions); a claimed try of a dead worker is the zombie reaper's, at SVC_ZOMBIE_AFTER_MS.
  const workerOpts = {
    connection,
    prefix: deps.config.redisPrefix,
    concurrency: deps.config.worker.concurrency,
    ...stallOptions(deps.config.worker.lockMs),
    maxStalledCount: 5,
  };
  const worker = new Worker(QUEUE_NAMES.tasks, processor(true), workerOpts);
  const hostWorkers = deps.hosts ? startHostWorkers(deps, deps.hosts, processor(false), workerOpts) : undefined;
  worker.on("error", (e) => deps.logger.warn({ err: String(e) }, "worker queue error"));
  const hb = startHeartbeat(
    deps.db,
    "worker",
    deps.instanceId,
    deps.config.worker.heartbeatMs,
    (e) => deps.logger.warn({ err: String(e) }, "heartbeat failed"),
    () => ({ running, concurrency: deps.config.worker.concurrency, ...(deps.hosts ? { hosts: deps.hosts.status() } : {}) }),
  );
  deps.logger.info({ instanceId: deps.instanceId, concurrency: deps.config.worker.concurrency }, "worker started");
  return {
    async close(graceMs = deps.config.limits.stopGraceMs) {
      stoppingNow = true;
      const closing = Promise.all([worker.close(), hostWorkers?.close()]);
      const t = setTimeout(() => {
        if (running) deps.logger.warn({ running, graceMs }, "stop grace over; handing back the tries still running");
        stopping.abort(new WorkerStoppingError(deps.instanceId));
      }, graceMs);
      await closing;
      clearTimeout(t);
      // Pending commits land while the heartbeat still says this worker is alive (no zombie reaping).
      await Promise.all([...finishing]);
      await hb.stop();
      await batcher.release();
      connection.disconnect();
    },
  };
}
