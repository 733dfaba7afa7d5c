import os from "node:os";
import type { DagDefinition } from "@svc/dags";
import type { Logger } from "@svc/logger";
import type { TaskJob } from "@svc/queue";
import { instantTryLine } from "../instant-line";
import { cleanLogLine, type LogLine } from "./log-writer";
import { cachedDefinition, runDefinition, taskFacts } from "./definition-cache";
import { finishTry, type TryResult } from "./finish-try";
import type { TryBatcher } from "./task-claim";
import type { RuntimeDeps } from "./deps";

/** Instant operators run before any claim, so they see no run params. */
const NO_PARAMS: Record<string, unknown> = Object.freeze({});
/** For tries with nothing to cancel them: a signal that never aborts. */
export const NEVER = new AbortController().signal;
const HOST = os.hostname();

/** The task's facts, operator and validated args if its try may take the instant path. */
function instantOf(deps: Pick<RuntimeDeps, "operators">, dag: DagDefinition, job: TaskJob) {
  const facts = taskFacts(dag, job.taskId);
  const op = facts && deps.operators.get(facts.task.operator);
  // A task with a queue must be claimed by a worker serving its host: no instant path.
  if (!facts || !op?.instant || facts.templated || facts.task.queue !== undefined) return undefined;
  // Untemplated args are the same for every try of the definition: validated once.
  const parsed = (facts.instantArgs ??= op.args.safeParse(facts.task.args));
  return parsed.success ? { facts, op, parsed } : undefined;
}

/**
 * Whether a try would take the instant path, from the definitions this process has already read
 * (no database): a worker runs such a downstream itself instead of sending it through the queue.
 */
export function isInstantTry(deps: Pick<RuntimeDeps, "operators">, job: TaskJob): boolean {
  const dag = job.dagHash && !job.host ? cachedDefinition(job.dagHash) : undefined;
  return !!dag && !!instantOf(deps, dag, job);
}

/**
 * Run a try of an instant operator (noop: finishes at once, touches nothing) without claiming it
 * first, and write its success in one step from queued, guarded by the try number: one database
 * operation per try instead of a claim and a commit. A duplicate delivery runs it again harmlessly
 * and finds the try no longer queued. Returns undefined when the task does not qualify (not an
 * instant operator, templated args, no definition) or the operator did not succeed: the caller
 * then takes the claim path, which runs it again and records the failure with retries as usual.
 */
export async function tryInstant(deps: RuntimeDeps, tries: TryBatcher, job: TaskJob, log: () => Logger): Promise<{ finishing: Promise<TryResult>; hops: boolean } | undefined> {
  if (!job.dagHash) return undefined;
  const dag = cachedDefinition(job.dagHash) ?? (await runDefinition(deps.db, job.dagId, job.runId, job.dagHash));
  const found = dag && instantOf(deps, dag, job);
  if (!found) return undefined;
  const { facts, op, parsed } = found;
  const started = new Date();
  const lines: LogLine[] = [];
  let output: Record<string, unknown> | void;
  try {
    output = await op.run(parsed.data, {
      dagId: job.dagId,
      runId: job.runId,
      taskId: job.taskId,
      tryNumber: job.tryNumber,
      params: NO_PARAMS,
      config: deps.config,
      log: (line, stream = "stdout") => void lines.push({ stream, line: cleanLogLine(line) }),
      signal: NEVER,
    });
  } catch {
    return undefined;
  }
  // It ran and succeeded in the same instant (a failure takes the claim path). A try that logged
  // nothing writes no log row: its system line is rebuilt from the task instance when read.
  const logs: LogLine[] = lines.length
    ? [{ stream: "system", line: instantTryLine({ tryNumber: job.tryNumber, hostname: HOST, workerId: deps.instanceId, operator: op.name }) }, ...lines]
    : [];
  return {
    hops: !!facts.hops?.length,
    finishing: finishTry(
      deps,
      tries,
      job,
      "success",
      (keep) => tries.finish({ job, workerId: deps.instanceId, operator: facts.task.operator, started, output: output ?? {}, logs, hops: facts.hops, ...(keep ? { keep } : {}) }),
      facts,
      log,
      true,
    ),
  };
}
