import type { Queue } from "bullmq";
import { scheduleToCron } from "@svc/dags";
import type { Db } from "@svc/db";
import type { Logger } from "@svc/logger";

export const cronSchedulerId = (dagId: string): string => `cron|${dagId}`;
/** The 5-field cron BullMQ schedules for a DAG schedule (presets expanded). */
export const cronPattern = (schedule: string): string => scheduleToCron(schedule) ?? schedule;

/**
 * Make BullMQ's job schedulers match the DAGs: one per active, unpaused DAG with a schedule.
 * Idempotent; run at start-up, on DAG changes and by reconciliation (a Redis wipe loses them).
 */
export async function syncCronSchedulers(db: Db, scheduler: Queue, logger: Logger, onlyDagId?: string): Promise<{ upserted: number; removed: number }> {
  let q = db.selectFrom("dag").select(["dag_id", "schedule", "is_paused", "is_active"]);
  if (onlyDagId) q = q.where("dag_id", "=", onlyDagId);
  const dags = await q.execute();
  const wanted = new Map(dags.filter((d) => d.schedule && !d.is_paused && d.is_active).map((d) => [cronSchedulerId(d.dag_id), d]));
  let upserted = 0;
  let removed = 0;
  const existing = await scheduler.getJobSchedulers(0, -1);
  const existingById = new Map(existing.map((s) => [s.key, s]));
  for (const [id, d] of wanted) {
    const pattern = cronPattern(d.schedule!);
    if (existingById.get(id)?.pattern === pattern) continue;
    await scheduler.upsertJobScheduler(id, { pattern }, { name: "cron", data: { kind: "cron", dagId: d.dag_id }, opts: { removeOnComplete: true, removeOnFail: 100 } });
    upserted++;
  }
  for (const s of existing) {
    if (!s.key.startsWith("cron|")) continue;
    if (onlyDagId && s.key !== cronSchedulerId(onlyDagId)) continue;
    if (!wanted.has(s.key)) {
      await scheduler.removeJobScheduler(s.key);
      removed++;
    }
  }
  if (upserted || removed) logger.info({ upserted, removed }, "cron schedules synced");
  return { upserted, removed };
}

/** The scheduled time a cron job stands for: BullMQ scheduler job ids end with the due millis. */
export function scheduledTimeOf(job: { id?: string; timestamp: number; opts?: { delay?: number } }): Date {
  const m = job.id?.match(/-(\d{12,})$/) ?? job.id?.match(/:(\d{12,})$/);
  if (m) return new Date(Number(m[1]));
  return new Date(job.timestamp + (job.opts?.delay ?? 0));
}
