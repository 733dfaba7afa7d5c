import { CronExpressionParser } from "cron-parser";

/** Schedule presets and the 5-field cron each stands for (Airflow's meaning: midnight UTC, Sunday for weekly). */
export const SCHEDULE_PRESETS: Readonly<Record<string, string>> = Object.freeze({
  "@hourly": "0 * * * *",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@weekly": "0 0 * * 0",
  "@monthly": "0 0 1 * *",
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
});

// Atoms standard cron knows: numbers, *, ?, L forms and 3-letter names; excludes cron-parser's 'H' hashing.
const ATOM = /^(\*|\?|\d+|\d*L|[A-Za-z]{3})$/;

/** The 5-field cron behind a schedule, or undefined for manual-only (null). Throws on an invalid schedule. */
export function scheduleToCron(schedule: string | null): string | undefined {
  if (schedule === null) return undefined;
  const s = schedule.trim();
  if (s.startsWith("@")) {
    const cron = Object.prototype.hasOwnProperty.call(SCHEDULE_PRESETS, s) ? SCHEDULE_PRESETS[s] : undefined;
    if (!cron) throw new Error(`unknown schedule preset '${s}' (known: ${Object.keys(SCHEDULE_PRESETS).join(", ")})`);
    return cron;
  }
  const fields = s.split(/\s+/);
  if (fields.length !== 5) throw new Error(`invalid cron expression '${s}': expected 5 fields (minute hour day-of-month month day-of-week), got ${fields.length}`);
  const bad = fields.find((f) => !f.split(/[,/#-]/).every((atom) => ATOM.test(atom)));
  if (bad !== undefined) throw new Error(`invalid cron expression '${s}': bad field '${bad}'`);
  try {
    CronExpressionParser.parse(`0 ${s}`, { tz: "UTC" });
  } catch (e) {
    throw new Error(`invalid cron expression '${s}': ${(e as Error).message}`);
  }
  return s;
}

/** True for null, a preset (@hourly, @daily, @weekly, @monthly, @yearly) or a valid 5-field cron expression. */
export function isValidSchedule(schedule: string | null): boolean {
  try {
    scheduleToCron(schedule);
    return true;
  } catch {
    return false;
  }
}

/** First time strictly after `date` that the schedule fires (UTC), or null for a manual-only schedule. */
export function nextRunAfter(schedule: string | null, date: Date): Date | null {
  const cron = scheduleToCron(schedule);
  if (!cron) return null;
  const it = CronExpressionParser.parse(`0 ${cron}`, { tz: "UTC", currentDate: date });
  return it.next().toDate();
}
