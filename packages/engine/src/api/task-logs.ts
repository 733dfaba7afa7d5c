import type { TaskInstanceRow } from "@svc/db";
import { BadRequestError } from "@svc/errors";
import { rebuiltInstantLine } from "../instant-line";
import type { ApiContext } from "./deps";
import { requireTaskInstance } from "./task-instances";

export interface TaskLogOptions {
  /** Continuation token from an earlier call: only newer lines are returned. */
  token?: string;
  /** Every line at once instead of the first page. */
  fullContent?: boolean;
  /** Only the last N lines (ignored with a token). */
  tail?: number;
}

export interface TaskLogChunk {
  content: string;
  /** Opaque; pass it back to get only the lines written since. */
  continuation_token: string;
  /** True when this try will write no more lines and all of them were returned. */
  finished: boolean;
}

/** Lines per call without full_content; a follower keeps calling with the token. */
export const LOG_PAGE_LINES = 5000;

/** Opaque token: base64url of the last task_log id returned. */
export function encodeLogToken(lastId: number): string {
  return Buffer.from(JSON.stringify({ v: 1, after: lastId })).toString("base64url");
}

export function decodeLogToken(token: string): number {
  try {
    const parsed = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as { v?: unknown; after?: unknown };
    if (parsed.v === 1 && Number.isSafeInteger(parsed.after) && (parsed.after as number) >= 0) return parsed.after as number;
  } catch {
    // fall through to the error below
  }
  throw new BadRequestError("token: not a continuation token returned by this API", { field: "token" });
}

/** Whether try `tryNumber` of this task instance can still write lines. */
export function tryIsLive(ti: Pick<TaskInstanceRow, "state" | "try_number">, tryNumber: number, runActive: boolean): boolean {
  if (tryNumber < ti.try_number) return false;
  // A rescheduled try writes again at its next poke, while the run is active.
  if (tryNumber === ti.try_number) return ti.state === "queued" || ti.state === "running" || (ti.state === "up_for_reschedule" && runActive);
  // A later try has not started: it still may while the run is active and the task is unfinished.
  return tryNumber === ti.try_number + 1 && runActive && (ti.state === null || ti.state === "scheduled" || ti.state === "up_for_retry");
}

/** One log line as text. */
export function formatLogLine(l: { ts: Date; stream: string; line: string }): string {
  return `[${l.ts.toISOString()}] {${l.stream}} ${l.line}`;
}

/** Task logs from Postgres, with continuation tokens for following a running try. */
export function taskLogOps(ctx: ApiContext) {
  const { db } = ctx;

  async function getTaskLog(dagId: string, runId: string, taskId: string, tryNumber: number, opts: TaskLogOptions = {}): Promise<TaskLogChunk> {
    if (!Number.isInteger(tryNumber) || tryNumber < 1) {
      throw new BadRequestError("task_try_number: must be a positive integer", { field: "task_try_number" });
    }
    const after = opts.token ? decodeLogToken(opts.token) : 0;
    // State first, lines second: a try that is finished here flushed all its lines before it committed.
    const { ti } = await requireTaskInstance(db, dagId, runId, taskId);
    const run = await db.selectFrom("dag_run").select("state").where("dag_id", "=", dagId).where("run_id", "=", runId).executeTakeFirst();
    const live = tryIsLive(ti, tryNumber, run?.state === "queued" || run?.state === "running");

    const q = db
      .selectFrom("task_log")
      .select(["id", "ts", "stream", "line"])
      .where("dag_id", "=", dagId)
      .where("run_id", "=", runId)
      .where("task_id", "=", taskId)
      .where("try_number", "=", tryNumber)
      .where("id", ">", String(after));
    const tail = !opts.token && opts.tail !== undefined ? Math.max(0, Math.floor(opts.tail)) : undefined;
    let rows;
    let more = false;
    if (tail !== undefined) {
      rows = (await q.orderBy("id", "desc").limit(tail).execute()).reverse();
    } else if (opts.fullContent) {
      rows = await q.orderBy("id").execute();
    } else {
      rows = await q
        .orderBy("id")
        .limit(LOG_PAGE_LINES + 1)
        .execute();
      more = rows.length > LOG_PAGE_LINES;
      if (more) rows = rows.slice(0, LOG_PAGE_LINES);
    }
    // An instant try that logged nothing has no rows: its one line is rebuilt from the task instance.
    const rebuilt = !rows.length && after === 0 && tail !== 0 ? rebuiltInstantLine(ti, tryNumber) : undefined;
    if (rebuilt) rows = [{ id: "0", ...rebuilt }];
    const lastId = rows.length ? Number(rows[rows.length - 1]!.id) : after;
    // tail=0 returns no line but must still move the token past the newest one.
    const nextAfter = tail === 0 ? await newestId(ctx, dagId, runId, taskId, tryNumber, lastId) : lastId;
    const content = rows.map((r) => formatLogLine(r) + "\n").join("");
    return { content, continuation_token: encodeLogToken(nextAfter), finished: !live && !more };
  }

  return { getTaskLog };
}

async function newestId(ctx: ApiContext, dagId: string, runId: string, taskId: string, tryNumber: number, floor: number): Promise<number> {
  const row = await ctx.db
    .selectFrom("task_log")
    .select((eb) => eb.fn.max("id").as("max"))
    .where("dag_id", "=", dagId)
    .where("run_id", "=", runId)
    .where("task_id", "=", taskId)
    .where("try_number", "=", tryNumber)
    .executeTakeFirst();
  return row?.max == null ? floor : Number(row.max);
}
