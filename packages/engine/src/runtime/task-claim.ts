import { createPool, type Db } from "@svc/db";
import type { TaskJob } from "@svc/queue";
import { microBatch } from "./micro-batch";
import {
  runTryOps,
  TRY_OPS_SQL,
  type ClaimRequest,
  type ClaimedTry,
  type CommitRequest,
  type FinishRequest,
  type HopQueued,
  type TryOpsExecutor,
  type TryOpsResult,
  type TryOpsRow,
  type TryOutcome,
} from "./try-ops";
import type { RunRead } from "./run-read";

export type { ClaimedTry, CommitRequest, FinishRequest, HopQueued, TryOutcome } from "./try-ops";

/** A written outcome: whether it landed, and the downstream tries its round queued with it (hops). */
export interface Written {
  landed: boolean;
  queued: HopQueued[];
}

/** Claim one queued try for this worker: only the first claim of a queued try wins. */
export async function claimTry(db: Db, job: TaskJob, workerId: string, now: Date): Promise<ClaimedTry | undefined> {
  return (await runTryOps(db, { claims: [{ job, workerId }], commits: [], openChecks: [] }, now)).claimed[0];
}

/** Commit one try's outcome, guarded by state, try number and worker. */
export async function commitTry(db: Db, job: TaskJob, workerId: string, now: Date, outcome: TryOutcome, logs: CommitRequest["logs"] = []): Promise<boolean> {
  return (await runTryOps(db, { claims: [], commits: [{ job, workerId, outcome, logs }], openChecks: [] }, now)).committed[0]!;
}

/** The workers' database traffic of one process, sent as one statement per round (group commit). */
export interface TryBatcher {
  claim(job: TaskJob, workerId: string): Promise<ClaimedTry | undefined>;
  commit(req: CommitRequest): Promise<Written>;
  /** Write the success of an instant try that ran without a claim; not landed if it was no longer queued. */
  finish(req: FinishRequest): Promise<Written>;
  /** Asked after a commit of the run has returned: does it still have unfinished tasks? */
  checkRun(run: Pick<TaskJob, "dagId" | "runId">): Promise<RunCheck>;
}

/** An open check's answer; a run without unfinished tasks comes with its read, for its evaluation. */
export type RunCheck = { open: true } | { open: false; read?: RunRead };

type Op =
  { kind: "claim"; req: ClaimRequest } | { kind: "commit"; req: CommitRequest } | { kind: "finish"; req: FinishRequest } | { kind: "check"; run: Pick<TaskJob, "dagId" | "runId"> };
type OpResult = ClaimedTry | Written | RunCheck | undefined;

/** The hops of one request among a round's queued tries (a hop has one upstream: no other request names it). */
function hopsOf(queued: HopQueued[], req: CommitRequest | FinishRequest, landed: boolean): Written {
  if (!landed || !req.hops?.length || !queued.length) return { landed, queued: [] };
  const hops = new Set(req.hops);
  return { landed, queued: queued.filter((q) => q.runId === req.job.runId && q.dagId === req.job.dagId && hops.has(q.taskId)) };
}

async function runOps(db: Db | TryOpsExecutor, ops: Op[], now: Date): Promise<OpResult[]> {
  const claims: ClaimRequest[] = [],
    commits: CommitRequest[] = [],
    finishes: FinishRequest[] = [],
    openChecks: Pick<TaskJob, "dagId" | "runId">[] = [];
  for (const op of ops) {
    if (op.kind === "claim") claims.push(op.req);
    else if (op.kind === "commit") commits.push(op.req);
    else if (op.kind === "finish") finishes.push(op.req);
    else openChecks.push(op.run);
  }
  const res = await runTryOps(db, { claims, commits, finishes, openChecks }, now);
  let c = 0,
    k = 0,
    f = 0,
    o = 0;
  return ops.map((op) =>
    op.kind === "claim"
      ? res.claimed[c++]
      : op.kind === "commit"
        ? hopsOf(res.queued, op.req, res.committed[k++]!)
        : op.kind === "finish"
          ? hopsOf(res.queued, op.req, res.finished[f++]!)
          : checked(res, o++),
  );
}

const checked = (res: TryOpsResult, i: number): RunCheck => (res.open[i] ? { open: true } : { open: false, read: res.reads[i] });

/** Rounds in flight at once; later calls wait and join the next round, so batches grow with load. */
const MAX_IN_FLIGHT = 2;
/** With a round in flight, a second goes out only once this many operations wait: bigger rounds under load, fewer round trips. */
const EAGER_AT = 32;

/**
 * A batcher over a pool: claims, commits and open checks of every worker slot share a statement
 * per round (group commit).
 */
export function tryBatcher(db: Db | TryOpsExecutor, now: () => Date = () => new Date()): TryBatcher {
  const send = microBatch((ops: Op[]) => runOps(db, ops, now()), { max: 256, maxInFlight: MAX_IN_FLIGHT, eagerAt: EAGER_AT });
  return {
    claim: (job, workerId) => send({ kind: "claim", req: { job, workerId } }) as Promise<ClaimedTry | undefined>,
    commit: (req) => send({ kind: "commit", req }) as Promise<Written>,
    finish: (req) => send({ kind: "finish", req }) as Promise<Written>,
    checkRun: (run) => send({ kind: "check", run }) as Promise<RunCheck>,
  };
}

const shared = new Map<string, { tries: TryBatcher; end: () => Promise<void>; refs: number }>();

/**
 * The process-wide batcher for a database URL, on its own small pool: every worker of the process
 * shares it (bigger rounds). Release it when the worker stops; the last release closes the pool.
 */
export function acquireTryBatcher(url: string): { tries: TryBatcher; release: () => Promise<void> } {
  let s = shared.get(url);
  if (!s) {
    const pool = createPool(url, { max: MAX_IN_FLIGHT, applicationName: "svc-worker-tries" });
    // A named statement: parsed and planned once per connection, not once per round.
    const exec: TryOpsExecutor = async (values) => (await pool.query<TryOpsRow>({ name: "svc_try_ops", text: TRY_OPS_SQL, values })).rows;
    s = { tries: tryBatcher(exec), end: () => pool.end(), refs: 0 };
    shared.set(url, s);
  }
  s.refs++;
  let released = false;
  const entry = s;
  return {
    tries: entry.tries,
    async release() {
      if (released) return;
      released = true;
      if (--entry.refs === 0) {
        shared.delete(url);
        await entry.end();
      }
    },
  };
}
