import { formatDuration, parseDuration } from "./duration";

describe("parseDuration", () => {
  it.each<[number | string, number]>([
    [30, 30_000],
    [0.1, 100],
    [0, 0],
    ["45", 45_000],
    ["0.5", 500],
    ["250ms", 250],
    ["30s", 30_000],
    ["0.1s", 100],
    ["5m", 300_000],
    ["1h", 3_600_000],
    ["1h30m", 5_400_000],
    ["2d", 172_800_000],
    ["1d2h3m4s5ms", 93_784_005],
    [" 10s ", 10_000],
  ])("%p is %p ms", (input, ms) => {
    expect(parseDuration(input)).toBe(ms);
  });

  it.each<[number | string, string]>([
    [-1, "must be a non-negative number of seconds"],
    [Number.NaN, "must be a non-negative number"],
    [Number.POSITIVE_INFINITY, "must be a non-negative number"],
    ["", "must be a non-negative number"],
    ["5 minutes", "string like 30s, 5m, 1h30m"],
    ["1w", "string like 30s"],
    ["m5", "string like 30s"],
    ["1h 30m", "string like 30s"],
    ["-5s", "string like 30s"],
    ["400d", "longer than 366 days"],
    [366 * 86400 + 1, "longer than 366 days"],
  ])("%p is rejected: %s", (input, fragment) => {
    expect(() => parseDuration(input)).toThrow(fragment);
  });
});

describe("formatDuration", () => {
  it.each([
    [100, "0.1s"],
    [250, "250ms"],
    [30_000, "30s"],
    [5_400_000, "1h30m"],
    [93_784_000, "1d2h3m4s"],
  ])("%p ms is %p", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});
