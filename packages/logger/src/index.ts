import pino from "pino";

export type Logger = pino.Logger;

/** Keys whose values never reach a log line. */
const REDACT = [
  "password", "*.password", "token", "*.token", "apiKey", "*.apiKey", "authorization", "*.authorization",
  "headers.authorization", "privateKey", "*.privateKey", "secret", "*.secret",
];

/** Structured JSON logger for a service or package; secrets are redacted by key. */
export function createLogger(name: string, level: string = process.env.SVC_LOG_LEVEL ?? "info"): Logger {
  return pino({ name, level, redact: { paths: REDACT, censor: "[redacted]" } });
}

/** A logger that discards everything (tests, CLI quiet mode). */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
