const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/y;

/** Longest duration accepted anywhere in a DAG file. */
export const MAX_DURATION_MS = 366 * 86_400_000;

/**
 * Duration in milliseconds from seconds (number, fractions allowed: 0.1 = 100 ms) or a string such as
 * "250ms", "30s", "5m", "1h", "1h30m", "2d" or "45" (seconds). Throws an Error explaining the format.
 */
export function parseDuration(value: number | string): number {
  const ms = typeof value === "number" ? value * 1000 : parseDurationString(value);
  if (!Number.isFinite(ms) || ms < 0) throw new Error(`invalid duration ${JSON.stringify(value)}: must be a non-negative number of seconds or a string like 30s, 5m, 1h30m`);
  if (ms > MAX_DURATION_MS) throw new Error(`invalid duration ${JSON.stringify(value)}: longer than 366 days`);
  return Math.round(ms);
}

function parseDurationString(text: string): number {
  const s = text.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return Number(s) * 1000;
  if (s.length === 0 || s.length > 32) return NaN;
  let total = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < s.length) {
    const m = PART.exec(s);
    if (!m) return NaN;
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
  }
  return total;
}

/** Short human form of a duration in milliseconds (1h30m, 0.1s). */
export function formatDuration(ms: number): string {
  if (ms < 1000) return ms % 1 === 0 && ms >= 1 && ms < 1000 && ms % 100 !== 0 ? `${ms}ms` : `${ms / 1000}s`;
  const parts: string[] = [];
  let rest = ms;
  for (const [unit, size] of [
    ["d", 86_400_000],
    ["h", 3_600_000],
    ["m", 60_000],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  if (rest > 0) parts.push(`${rest / 1000}s`);
  return parts.join("");
}
