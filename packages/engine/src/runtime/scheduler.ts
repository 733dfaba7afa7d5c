import { Worker, type Job } from "bullmq";
import { createRedis, QUEUE_NAMES, schedulerJobSchema } from "@svc/queue";
import { syncDagFolder, watchDagFolder } from "../processor";
import { scheduledTimeOf, syncCronSchedulers } from "./cron";
import type { RuntimeDeps } from "./deps";
import { createCoalescer } from "./coalesce";
import { evaluateRun } from "./evaluate-run";
import { startHeartbeat } from "./heartbeat";
import { startLeadership } from "./leader";
import { reconcile } from "./reconcile";
import { dagSettingsFromConfig } from "./settings";
import { startQueuedRuns } from "./start-runs";
import { superviseWorker } from "./worker-watchdog";
import { startTableStats } from "./table-stats";
import { schedulerInstantTries } from "./scheduler-instant";

export interface SchedulerOptions {
  /** Creates a scheduled run (the engine API's triggerDagRun); an existing run id is not an error. */
  triggerScheduled(dagId: string, runId: string, logicalDate: Date): Promise<void>;
  /** Parse the DAG folder and watch it (the leader only). Default true. */
  processDags?: boolean;
}

export interface EngineScheduler {
  isLeader(): boolean;
  /** Resolves once this scheduler leads and its first DAG-folder pass and reconciliation are done. */
  ready(): Promise<void>;
  /** Run one reconciliation pass now (tests, `reserialize`). */
  reconcileNow(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The scheduler: consumes `scheduler` events (evaluate run, start queued runs, cron ticks) on every
 * instance; the elected leader also runs the DAG processor, reconciliation and cron sync.
 */
export function startScheduler(baseDeps: RuntimeDeps, opts: SchedulerOptions): EngineScheduler {
  const log = baseDeps.logger;
  const connection = createRedis(baseDeps.config.redisUrl);
  const settings = dagSettingsFromConfig(baseDeps.config);
  let leaderTimers: (() => void)[] = [];
  let reconciling: Promise<void> | null = null;
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  // Set once this leader's first DAG-folder pass committed: the heartbeat says so (engine health's
  // dag_processor, and the orchestrator, which waits for it before refusing an intent nothing matched).
  let dagsProcessed = false;

  const evaluate = createCoalescer((key, version) => {
    const [dagId, runId] = JSON.parse(key) as [string, string];
    return evaluateRun(deps, dagId, runId, version);
  });
  // Run starts and reconciliation evaluate through the same per-run coalescer as events; the
  // instant tries that evaluations queue are finished here (scheduler-instant.ts).
  const instant = schedulerInstantTries(baseDeps);
  const deps: RuntimeDeps = instant.attach({ ...baseDeps, evaluate: (dagId, runId, minVersion) => evaluate(JSON.stringify([dagId, runId]), minVersion) });
  // Dag events (a trigger, an unpause, a run's end) coalesce per DAG the same way: a burst of
  // triggers starts its runs in one pass, and an event during a pass makes one more pass.
  // The events that join a pass in flight are done at once: a thousand triggers no longer fill
  // every slot of this worker while one pass runs, so run evaluations (run ends) go on meanwhile.
  // The version is 1 when some event of the pass said the DAG's schedule or pause state may have
  // changed (the coalescer keeps the highest): only then is its cron scheduler synced, not on every
  // trigger and run end (reconciliation syncs them all besides, every few seconds).
  const startRuns = createCoalescer(
    async (dagId, schedule) => {
      await startQueuedRuns(deps, dagId);
      if (schedule) await syncCronSchedulers(deps.db, deps.queues.scheduler, log, dagId);
    },
    { joinersWait: false },
  );
  const handle = async (job: Job) => {
    const ev = schedulerJobSchema.parse(job.data);
    switch (ev.kind) {
      case "run":
        // Version 0 is a retry wake-up: it must evaluate even if the current version already was.
        await evaluate(JSON.stringify([ev.dagId, ev.runId]), ev.version || Number.MAX_SAFE_INTEGER);
        return;
      case "dag":
        await startRuns(ev.dagId, ev.schedule ? 1 : 0);
        return;
      case "cron": {
        const at = scheduledTimeOf(job);
        await opts.triggerScheduled(ev.dagId, `scheduled__${at.toISOString()}`, at);
        return;
      }
    }
  };
  const makeWorker = () => {
    const w = new Worker(QUEUE_NAMES.scheduler, handle, { connection: connection, prefix: deps.config.redisPrefix, concurrency: 8 });
    w.on("error", (e) => log.warn({ err: String(e) }, "scheduler queue error"));
    w.on("failed", (job, e) => log.error({ jobId: job?.id, err: String(e) }, "scheduler event failed"));
    return w;
  };
  const supervised = superviseWorker(makeWorker, deps.queues.scheduler, {
    intervalMs: 5000,
    staleMs: 30_000,
    onRestart: (f) =>
      log.warn(f, "scheduler events waited while the scheduler's queue worker took none (a Redis failover can leave it blocked on a dead connection): worker made anew"),
    onUnreadable: (f) => log.warn(f, "the scheduler queue's waiting count could not be read; the watchdog judges again when it can"),
  });

  const reconcileNow = async () => {
    if (reconciling) return reconciling;
    reconciling = (async () => {
      try {
        const r = await reconcile(deps);
        await syncCronSchedulers(deps.db, deps.queues.scheduler, log);
        if (r.reenqueued || r.zombies || r.startedRuns) log.info(r, "reconciled");
      } catch (e) {
        log.error({ err: String(e) }, "reconciliation failed");
      } finally {
        reconciling = null;
      }
    })();
    return reconciling;
  };

  const processDags = async () => {
    try {
      const report = await syncDagFolder({ db: deps.db, dagsDir: deps.config.dagsDir, catalog: deps.operators, settings, logger: log, notifier: deps.notifier });
      log.info({ added: report.added.length, updated: report.updated.length, errors: report.errors.length }, "DAG folder processed");
    } catch (e) {
      log.error({ err: String(e), dagsDir: deps.config.dagsDir }, "DAG folder processing failed");
    }
  };

  const onLeader = (leader: boolean) => {
    leaderTimers.forEach((stop) => stop());
    leaderTimers = [];
    if (!leader) return log.warn("lost scheduler leadership");
    log.info("became scheduler leader");
    if (opts.processDags !== false) {
      void processDags()
        .then(() => {
          dagsProcessed = true;
          return hb.beatNow();
        })
        .then(reconcileNow)
        .then(markReady);
      const stopWatch = watchDagFolder(deps.config.dagsDir, () => void processDags(), { debounceMs: 200 });
      leaderTimers.push(stopWatch);
    } else {
      void reconcileNow().then(markReady);
    }
    const t = setInterval(() => void reconcileNow(), deps.config.reconcileIntervalMs);
    leaderTimers.push(() => clearInterval(t), startTableStats(deps.db, log));
  };
  const leadership = startLeadership(deps.config.databaseUrl, Math.min(2000, deps.config.reconcileIntervalMs), onLeader, (e) =>
    log.warn({ err: String(e) }, "leadership connection error"),
  );
  const hb = startHeartbeat(
    deps.db,
    "scheduler",
    deps.instanceId,
    Math.max(1000, deps.config.worker.heartbeatMs),
    (e) => log.warn({ err: String(e) }, "heartbeat failed"),
    () => ({ leader: leadership.isLeader(), ...(dagsProcessed ? { dags_processed: true } : {}) }),
  );
  log.info({ instanceId: deps.instanceId }, "scheduler started");

  return {
    isLeader: () => leadership.isLeader(),
    ready: () => ready,
    reconcileNow,
    async close() {
      leaderTimers.forEach((stop) => stop());
      await leadership.stop();
      supervised.stop();
      await supervised.current().close();
      await reconciling;
      await instant.close();
      await hb.stop();
      connection.disconnect();
    },
  };
}
