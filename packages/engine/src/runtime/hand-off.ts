import type { TaskJob } from "@svc/queue";
import type { KeepHop, RuntimeDeps } from "./deps";
import type { ClaimedTry } from "./task-claim";
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

/** The try a slot runs next, and its claim if its upstream's round made it (a kept hop, migration 018). */
export interface SlotNext {
  job: TaskJob;
  claimed?: ClaimedTry;
}

/**
 * A slot's hand-off, for the commit of a try it ran: the instant tries go to the worker's
 * hand-off, and one claimed downstream is kept for this slot, which runs it next instead of taking
 * a job. The slot stays one slot (the worker's concurrency holds). `keepHop` names, before the
 * write, the first hop that may run here; the round that lands the success claims it for this
 * worker and `take` keeps it. Failing that (a hop routed to a host), the first claimed try the
 * round queued that may run here is kept, queued in Postgres by the statement that landed its
 * upstream (a worker that dies before claiming it leaves it to reconciliation, as a lost add).
 * `begin` registers the kept try at once, before its upstream settles; a claim that lands after
 * the slot stopped waiting (`close`) goes to `beside`, which runs it outside the slots.
 */
export function slotHandOff(
  deps: Pick<RuntimeDeps, "operators">,
  worker: HandOff,
  begin: (job: TaskJob) => void,
  stopping: () => boolean,
  beside: (next: Required<SlotNext>) => void,
): { handOff: HandOff; keepHop: KeepHop; kept(): SlotNext | undefined; close(): void } {
  let kept: SlotNext | undefined;
  let asked = false;
  let closed = false;
  const keep = (next: SlotNext) => {
    kept = next;
    begin(next.job);
  };
  return {
    handOff(jobs) {
      const rest = worker(jobs);
      if (kept || closed || stopping()) return rest;
      const i = rest.findIndex((j) => runsHere(deps, j));
      if (i < 0) return rest;
      keep({ job: rest[i]! });
      return rest.filter((_, k) => k !== i);
    },
    keepHop: {
      pick(job, hops) {
        if (asked || kept || closed || stopping()) return undefined;
        asked = true;
        const { dagId, runId, dagHash } = job;
        return hops.find((taskId) => {
          const hop = { dagId, runId, taskId, tryNumber: 0, ...(dagHash ? { dagHash } : {}) };
          return runsHere(deps, hop) && !isInstantTry(deps, hop);
        });
      },
      take(job, claimed) {
        if (kept || closed) beside({ job, claimed });
        else keep({ job, claimed });
      },
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
