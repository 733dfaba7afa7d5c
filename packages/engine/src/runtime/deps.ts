import type { SvcConfig } from "@svc/config";
import type { Db } from "@svc/db";
import type { Logger } from "@svc/logger";
import type { OperatorRegistry } from "@svc/operators";
import type { Queues } from "@svc/queue";
import type { Notifier } from "../notifier";
import type { TryBatcher } from "./task-claim";
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
}

export const nowOf = (deps: Pick<RuntimeDeps, "clock">): Date => (deps.clock ? deps.clock() : new Date());
