import { prettyFactory } from "pino-pretty";

/** Options for the human-readable form: time, level, name, message, then the fields on one line. */
export const PRETTY_OPTIONS = { colorize: true, singleLine: true, ignore: "pid,hostname", translateTime: "SYS:HH:MM:ss" } as const;

/**
 * Turns one JSON log line into a readable one; anything that is not a JSON log line (a stack
 * trace, a tool's own output) comes back as it was.
 */
export function createLinePrettifier(colorize = true): (line: string) => string {
  const pretty = prettyFactory({ ...PRETTY_OPTIONS, colorize });
  return (line) => {
    if (!line.startsWith("{")) return line;
    try {
      const obj = JSON.parse(line) as unknown;
      if (!obj || typeof obj !== "object" || !("level" in obj)) return line;
      return pretty(obj).replace(/\n+$/, "");
    } catch {
      return line;
    }
  };
}

/** The log format asked for (SVC_LOG_FORMAT, config.logFormat): auto = pretty on a terminal. */
export type LogFormat = "auto" | "json" | "pretty";

/** Human-readable logs when a person watches the terminal, JSON otherwise (`format` overrides). */
export function wantsPrettyLogs(format: LogFormat = "auto", isTty = Boolean(process.stdout.isTTY)): boolean {
  if (format === "json") return false;
  if (format === "pretty") return true;
  return isTty;
}
