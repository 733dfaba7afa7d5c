import type { TaskInstanceRow } from "@svc/db";

/**
 * The one system line of a try of an instant operator (noop). A try whose operator logged nothing
 * keeps no log rows: the line is rebuilt from the task instance when its log is read (one insert
 * less per no-op try). Such a try is recognisable: it succeeded under a worker with no log line at
 * all, which a claimed try never does (its last lines land in the statement of its outcome).
 */
export function instantTryLine(t: { tryNumber: number; hostname: string; workerId: string; operator: string }): string {
  return `try ${t.tryNumber} ran on ${t.hostname} (worker ${t.workerId}, operator ${t.operator}) without a claim (instant operator, no side effects) and succeeded`;
}

/** The rebuilt line of `tryNumber` when the task instance shows an instant try that logged nothing; else undefined. */
export function rebuiltInstantLine(
  ti: Pick<TaskInstanceRow, "state" | "try_number" | "worker_id" | "hostname" | "operator" | "start_date" | "end_date">,
  tryNumber: number,
): { ts: Date; stream: "system"; line: string } | undefined {
  if (ti.state !== "success" || ti.try_number !== tryNumber || !ti.worker_id) return undefined;
  const ts = new Date(ti.start_date ?? ti.end_date ?? 0);
  return { ts, stream: "system", line: instantTryLine({ tryNumber, hostname: ti.hostname, workerId: ti.worker_id, operator: ti.operator }) };
}
