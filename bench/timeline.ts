import type { Db } from "@svc/db";

/**
 * One line per run whose id starts with `prefix`: when it was created and started, when its first
 * task was queued and started, when its last task ended and when the run ended, in ms after `t0`.
 */
export async function runTimeline(db: Db, dagId: string, prefix: string, t0: number): Promise<string[]> {
  const runs = await db
    .selectFrom("dag_run")
    .select(["run_id", "queued_at", "start_date", "end_date"])
    .where("dag_id", "=", dagId)
    .where("run_id", "like", `${prefix}%`)
    .orderBy("run_id")
    .execute();
  const ms = (x: unknown) => (x == null ? "-" : String(new Date(x as string).getTime() - t0));
  const lines: string[] = [];
  for (const r of runs) {
    const t = await db
      .selectFrom("task_instance")
      .select((eb) => [eb.fn.min("queued_at").as("queued"), eb.fn.min("start_date").as("first"), eb.fn.max("end_date").as("last")])
      .where("dag_id", "=", dagId)
      .where("run_id", "=", r.run_id)
      .executeTakeFirstOrThrow();
    lines.push(
      `    ${r.run_id}: created ${ms(r.queued_at)}, started ${ms(r.start_date)}, first task queued ${ms(t.queued)}, first task started ${ms(t.first)}, last task ended ${ms(t.last)}, run ended ${ms(r.end_date)}`,
    );
  }
  return lines;
}
