import type { TaskJob } from "@svc/queue";
import type { RuntimeDeps } from "./deps";
import { isInstantTry } from "./instant-try";
import { cachedDefinition, taskFacts } from "./definition-cache";

type HandOff = (jobs: TaskJob[]) => TaskJob[];

/** The try's task as this process already knows it (its run's definition read here), else undefined. */
const knownFacts = (job: TaskJob) => {
  const dag = job.dagHash ? cachedDefinition(job.dagHash) : undefined;
  return dag && taskFacts(dag, job.taskId);
};

/** Whether a claimed try may run in a slot of this worker's tasks queue: its task known here, not routed to a host, no queue of its own. */
function runsHere(deps: Pick<RuntimeDeps, "operators">, job: TaskJob): boolean {
  const facts = job.host ? undefined : knownFacts(job);
  return !!facts && facts.task.queue === undefined && deps.operators.get(facts.task.operator) !== undefined;
}

/**
 * The worker's hand-off (deps.handOff): a try of an instant operator (noop) that this worker's
 * round or evaluation queued runs here at once, with `run`: no job, no take, as Airflow's scheduler
 * finishes EmptyOperator tasks without the executor. Not while stopping: then every downstream
 * gets its job, for another worker. Returns the tries that still need their jobs.
 */
export function instantHandOff(deps: Pick<RuntimeDeps, "operators">, run: (job: TaskJob) => void, stopping: () => boolean): HandOff {
  return (jobs) =>
    stopping()
      ? jobs
      : jobs.filter((j) => {
          if (!isInstantTry(deps, j)) return true;
          run(j);
          return false;
        });
}

/**
 * A slot's hand-off, for the commit of a try it ran: the instant tries go to the worker's
 * hand-off, and of the claimed tries the round queued, the first that may run here is kept for
 * this slot, which runs it next instead of taking a job. The slot stays one slot (the worker's
 * concurrency holds), and the kept try was queued in Postgres by the statement that landed its
 * upstream's outcome (a worker that dies before claiming it leaves it to reconciliation, as a
 * lost add). `begin` registers the kept try at once, before its upstream settles.
 */
export function slotHandOff(
  deps: Pick<RuntimeDeps, "operators">,
  worker: HandOff,
  begin: (job: TaskJob) => void,
  stopping: () => boolean,
): { handOff: HandOff; kept(): TaskJob | undefined; close(): void } {
  let kept: TaskJob | undefined;
  let closed = false;
  return {
    handOff(jobs) {
      const rest = worker(jobs);
      if (kept || closed || stopping()) return rest;
      const i = rest.findIndex((j) => runsHere(deps, j));
      if (i < 0) return rest;
      kept = rest[i]!;
      begin(kept);
      return rest.filter((_, k) => k !== i);
    },
    kept: () => kept,
    /** The slot no longer waits for this commit: a round that lands later keeps nothing. */
    close: () => void (closed = true),
  };
}

/** Whether a try's success may queue plain hops, as far as this process knows its definition (unknown: it may). */
export function mayHop(job: TaskJob): boolean {
  const facts = knownFacts(job);
  return !facts || !!facts.hops?.length;
}

/** How long a slot waits for its try's commit (and the downstream it may keep) before going on without it. */
export const SLOT_WAITS_MS = 1000;

/**
 * Whether `p` settles within `ms`: a rejection in time counts, and is reported to `failed`; one
 * that comes later is left to whoever else handles `p`.
 */
export function landsSoon(p: Promise<unknown>, failed: (e: unknown) => void, ms = SLOT_WAITS_MS): Promise<boolean> {
  return new Promise((resolve) => {
    let over = false;
    const timer = setTimeout(() => {
      over = true;
      resolve(false);
    }, ms);
    p.then(
      () => (clearTimeout(timer), resolve(true)),
      (e) => {
        clearTimeout(timer);
        if (!over) failed(e);
        resolve(true);
      },
    );
  });
}
