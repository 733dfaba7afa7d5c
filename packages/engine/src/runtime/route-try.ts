import { NonRetryableError } from "@svc/errors";
import type { TaskJob } from "@svc/queue";
import { enqueueTasks } from "./enqueue";
import type { OperatorHost, RouteDecision } from "../ports";
import { nowOf, type RuntimeDeps } from "./deps";
import type { LogLine, LogWriter } from "./log-writer";

/** Thrown inside a try that belongs to a host this worker does not serve (or serves but finds down). */
export class TryRoutedAway extends Error {
  constructor(readonly host: string) {
    super(`routed to host ${host}`);
    this.name = "TryRoutedAway";
  }
}

/**
 * The args the router sees for a task with Airflow's `queue` (a host whose workers alone may run
 * it): the queue pins the host as a `host` arg does. A `host` arg naming another host is refused.
 */
export function queuePinnedArgs(args: Record<string, unknown>, queue: string | undefined, writer: LogWriter): Record<string, unknown> {
  if (queue === undefined) return args;
  const given = args.host;
  if (given !== undefined && given !== null && given !== "" && given !== queue) {
    throw new NonRetryableError(`the task's queue is '${queue}' but its host arg is ${JSON.stringify(given)}: give one host, or the same in both`);
  }
  writer.write(`queue '${queue}': the task runs only on a worker serving host '${queue}'`, "system");
  return { ...args, host: queue };
}

/**
 * The host of a host-scoped try (or of a task with Airflow's `queue`): the one it was routed to
 * before (job.host: later tries stick to the host that holds their effects), else the router's
 * choice, recorded on the task instance and explained in the log. Runs here (returns the
 * operator's view of the host) only when this worker serves the host and finds it up; otherwise
 * throws TryRoutedAway and moveTry hands it over.
 */
export async function hostForTry(
  deps: RuntimeDeps,
  job: TaskJob,
  operator: string,
  args: Record<string, unknown>,
  writer: LogWriter,
  queue?: string,
): Promise<OperatorHost | undefined> {
  const hosts = deps.hosts!;
  let host = job.host;
  if (!host) {
    const routeArgs = queuePinnedArgs(args, queue, writer);
    const d: RouteDecision = await hosts.route({ dagId: job.dagId, runId: job.runId, taskId: job.taskId, operator, args: routeArgs });
    for (const l of d.lines) writer.write(l, "system");
    host = d.host;
    if (hosts.serves(host)) await recordHost(deps, job, host);
  }
  if (!hosts.serves(host)) throw new TryRoutedAway(host);
  writer.write(`running on host ${host} (worker ${deps.instanceId})`, "system");
  return hosts.operatorHost(host);
}

async function recordHost(deps: RuntimeDeps, job: TaskJob, host: string): Promise<void> {
  await deps.db
    .updateTable("task_instance")
    .set({ host })
    .where("dag_id", "=", job.dagId)
    .where("run_id", "=", job.runId)
    .where("task_id", "=", job.taskId)
    .where("try_number", "=", job.tryNumber)
    .where("worker_id", "=", deps.instanceId)
    .execute();
}

/**
 * Hand a claimed try to its host's queue at the same try number: queued again with the host
 * recorded (in one transaction with its log lines), then added to `tasks@<host>`. A crash between
 * the two leaves a queued try with a host and no job: reconciliation enqueues it on that host's queue.
 */
export async function moveTry(deps: RuntimeDeps, job: TaskJob, host: string, writer: LogWriter): Promise<"routed" | "dropped"> {
  const logs: LogLine[] = await writer.detach();
  const why = deps.hosts?.served().includes(host) ? "this worker serves it but finds it down" : "this worker does not serve it";
  logs.push({ stream: "system", line: `moved to the queue of host ${host} (${why}); it waits there for a worker serving the host while the host is up` });
  const now = nowOf(deps);
  const moved = await deps.db.transaction().execute(async (tx) => {
    const row = await tx
      .updateTable("task_instance")
      .set({ state: "queued", host, worker_id: null, start_date: null, queued_at: now, updated_at: now })
      .where("dag_id", "=", job.dagId)
      .where("run_id", "=", job.runId)
      .where("task_id", "=", job.taskId)
      .where("try_number", "=", job.tryNumber)
      .where("state", "=", "running")
      .where("worker_id", "=", deps.instanceId)
      .returning("task_id")
      .executeTakeFirst();
    if (!row) return false;
    const k = { dag_id: job.dagId, run_id: job.runId, task_id: job.taskId, try_number: job.tryNumber };
    await tx
      .insertInto("task_log")
      .values(logs.map((l) => ({ ...k, stream: l.stream, line: l.line })))
      .execute();
    return true;
  });
  if (!moved) return "dropped";
  await enqueueTasks(deps.queues, [{ ...job, host }]).catch((e) =>
    deps.logger.warn({ ...job, host, err: String(e) }, "could not enqueue a routed try; reconciliation enqueues it on its host's queue"),
  );
  return "routed";
}
