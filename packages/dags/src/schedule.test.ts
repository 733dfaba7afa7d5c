import { isValidSchedule, nextRunAfter, scheduleToCron } from "./schedule";

describe("isValidSchedule", () => {
  it.each([
    null,
    "@hourly",
    "@daily",
    "@weekly",
    "@monthly",
    "@yearly",
    "@annually",
    "@midnight",
    "*/5 * * * *",
    "0 3 * * 1-5",
    "30 2 1,15 * *",
    "0 0 * JAN,JUL MON",
    "0 12 L * *",
    " 0 0 * * * ",
  ])("%p is valid", (s) => {
    expect(isValidSchedule(s)).toBe(true);
  });

  it.each([
    "",
    "@fortnightly",
    "every 6 hours",
    "* * * *",
    "0 0 * * * *",
    "61 * * * *",
    "* 25 * * *",
    "* * 32 * *",
    "* * * 13 *",
    "H * * * *",
    "*/0 * * * *",
    "a b c d e",
    "0 0 * * FOO",
  ])("%p is invalid", (s) => {
    expect(isValidSchedule(s)).toBe(false);
  });

  it("explains what is wrong", () => {
    expect(() => scheduleToCron("* * * *")).toThrow("expected 5 fields (minute hour day-of-month month day-of-week), got 4");
    expect(() => scheduleToCron("@often")).toThrow("unknown schedule preset '@often' (known: @hourly, @daily, @midnight, @weekly, @monthly, @yearly, @annually)");
    expect(() => scheduleToCron("61 * * * *")).toThrow("invalid cron expression '61 * * * *'");
  });
});

describe("nextRunAfter", () => {
  const at = (iso: string) => new Date(iso);
  it.each([
    ["@hourly", "2024-05-01T10:20:00Z", "2024-05-01T11:00:00.000Z"],
    ["@daily", "2024-05-01T10:20:00Z", "2024-05-02T00:00:00.000Z"],
    ["@daily", "2024-05-02T00:00:00Z", "2024-05-03T00:00:00.000Z"],
    ["@weekly", "2024-05-01T10:20:00Z", "2024-05-05T00:00:00.000Z"],
    ["@monthly", "2024-05-01T10:20:00Z", "2024-06-01T00:00:00.000Z"],
    ["@yearly", "2024-05-01T10:20:00Z", "2025-01-01T00:00:00.000Z"],
    ["*/15 * * * *", "2024-05-01T10:20:00Z", "2024-05-01T10:30:00.000Z"],
    ["0 3 * * 1-5", "2024-05-03T04:00:00Z", "2024-05-06T03:00:00.000Z"],
    ["*/5 * * * *", "2024-05-01T10:20:00.500Z", "2024-05-01T10:25:00.000Z"],
  ])("%s after %s is %s (UTC, strictly after)", (schedule, from, expected) => {
    expect(nextRunAfter(schedule, at(from))?.toISOString()).toBe(expected);
  });

  it("is null for a manual-only DAG", () => {
    expect(nextRunAfter(null, new Date())).toBeNull();
  });

  it("throws for an invalid schedule", () => {
    expect(() => nextRunAfter("nope", new Date())).toThrow("invalid cron expression");
  });
});
