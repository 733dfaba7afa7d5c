/** `schedule_interval` as Airflow's API serialises it: a CronExpression object, or null for manual-only DAGs. */
export function scheduleInterval(schedule: string | null): { __type: "CronExpression"; value: string } | null {
  return schedule ? { __type: "CronExpression", value: schedule } : null;
}

const PRESETS: Record<string, string> = {
  "@once": "Once, as soon as possible",
  "@continuous": "As frequently as possible, but only one run at a time.",
  "@hourly": "At 0 minutes past the hour",
  "@daily": "At 00:00",
  "@midnight": "At 00:00",
  "@weekly": "At 00:00, only on Sunday",
  "@monthly": "At 00:00, on day 1 of the month",
  "@yearly": "At 00:00, on day 1 of the month, only in January",
  "@annually": "At 00:00, on day 1 of the month, only in January",
};

const pad = (n: string) => n.padStart(2, "0");
const isNum = (s: string) => /^\d{1,2}$/.test(s);

/**
 * Human-readable schedule, worded like Airflow's timetable_description for the common shapes
 * (presets, fixed time of day, every N hours/minutes); other expressions are quoted as they are.
 */
export function timetableDescription(schedule: string | null): string {
  if (!schedule) return "Never, external triggers only";
  const preset = PRESETS[schedule.trim()];
  if (preset) return preset;
  const f = schedule.trim().split(/\s+/);
  if (f.length !== 5) return `Cron schedule: ${schedule}`;
  const [min, hour, dom, mon, dow] = f as [string, string, string, string, string];
  const everyDay = dom === "*" && mon === "*" && dow === "*";
  if (everyDay && isNum(min) && isNum(hour)) return `At ${pad(hour)}:${pad(min)}`;
  if (everyDay && isNum(min) && hour === "*") return `At ${Number(min)} minutes past the hour`;
  const everyH = /^\*\/(\d+)$/.exec(hour);
  if (everyDay && isNum(min) && everyH) return `At ${Number(min)} minutes past the hour, every ${everyH[1]} hours`;
  const everyM = /^\*\/(\d+)$/.exec(min);
  if (everyDay && everyM && hour === "*") return `Every ${everyM[1]} minutes`;
  if (min === "*" && hour === "*" && everyDay) return "Every minute";
  return `Cron schedule: ${schedule}`;
}
