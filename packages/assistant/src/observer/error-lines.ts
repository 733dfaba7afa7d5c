/** Words that mark a log line as part of a failure. */
const ERROR_LINE =
  /\b(error|errors|fatal|failed|failure|traceback|exception|panic|denied|refused|unreachable|timed out|timeout|no such|not found|cannot|could not|unable to)\b|^E\s|\bexit (code|status) [1-9]/i;

/** Log tail length kept in a concern (the spec's 50 lines). */
export const LOG_TAIL_LINES = 50;
const MAX_ERROR_LINES = 10;

/** The last LOG_TAIL_LINES lines. */
export function logTail(lines: readonly string[]): string[] {
  return lines.slice(-LOG_TAIL_LINES);
}

/** The last lines of the tail that look like errors (Traceback, fatal, failed, exception, ...). */
export function errorLines(lines: readonly string[]): string[] {
  return logTail(lines)
    .filter((l) => ERROR_LINE.test(l))
    .slice(-MAX_ERROR_LINES);
}
