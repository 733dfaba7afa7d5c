import type { SvcConfig } from "@svc/config";
import type { Db } from "@svc/db";
import type { Logger } from "@svc/logger";
import type { Queues, TaskJob } from "@svc/queue";
import type { Notifier } from "../notifier";
import type { HostRouting, OperatorRegistry } from "../ports";
import type { ClaimedTry, TryBatcher } from "./task-claim";
import type { LeafChecks } from "./leaf-checks";

/** What the scheduler and worker runtimes need; passed in, never global. */
export interface RuntimeDeps {
  db: Db;
  queues: Queues;
  notifier: Notifier;
  logger: Logger;
  config: SvcConfig;
  operators: OperatorRegistry;
  /** Identifies this process in heartbeats and task claims. */
  instanceId: string;
  clock?: () => Date;
  /** The worker's batched claims and commits (startWorker sets it; otherwise one over `db`). */
  tries?: TryBatcher;
  /** The worker's tries in hand per run, for deferring leaf checks (startWorker sets it). */
  leafChecks?: LeafChecks;
  /**
   * The scheduler's evaluation of a run, shared per run within its process (startScheduler sets
   * it): reconciliation and run starts ask through it, so they never evaluate a run at the same
   * time as an event does. Otherwise evaluateRun is called directly.
   */
  evaluate?: (dagId: string, runId: string, minVersion: number) => Promise<unknown>;
  /**
   * The worker's hand-off of downstream tries its rounds queued (startWorker sets it): it runs the
   * instant ones itself (noop: no effects, nothing to wait for) and returns the others, which go
   * through the queue; a slot's own hand-off also keeps one claimed try to run next (hand-off.ts).
   * Absent: every downstream try gets its job.
   */
  handOff?: (jobs: TaskJob[]) => TaskJob[];
  /** A worker slot's claimed downstream, decided with its upstream's outcome (hand-off.ts, migration 018). Absent: nothing is kept claimed. */
  keepHop?: KeepHop;
  /**
   * Several hypervisor hosts (the worker's, from @svc/hosts): host-scoped tries are routed to a
   * host and run only by workers serving it. Absent: every try runs here against the configured host.
   */
  hosts?: HostRouting;
}

/** How a worker slot takes the downstream it runs next already claimed by its upstream's round. */
export interface KeepHop {
  /** Which of a success's hops its round should claim for this slot, if any (asked once, before the write). */
  pick(job: TaskJob, hops: readonly string[]): string | undefined;
  /** The round claimed it: the slot runs it next, or the worker beside its slots if the slot no longer waits. */
  take(job: TaskJob, claimed: ClaimedTry): void;
}

export const nowOf = (deps: Pick<RuntimeDeps, "clock">): Date => (deps.clock ? deps.clock() : new Date());
