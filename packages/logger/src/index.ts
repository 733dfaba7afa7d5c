import pino from "pino";
import PinoPretty from "pino-pretty";
import { PRETTY_OPTIONS, wantsPrettyLogs } from "./pretty";

export { createLinePrettifier, wantsPrettyLogs } from "./pretty";

export type Logger = pino.Logger;

/** Keys whose values never reach a log line. */
const REDACT = [
  "password",
  "*.password",
  "token",
  "*.token",
  "apiKey",
  "*.apiKey",
  "authorization",
  "*.authorization",
  "headers.authorization",
  "privateKey",
  "*.privateKey",
  "secret",
  "*.secret",
];

/**
 * Structured logger for a service or package; secrets are redacted by key. JSON lines, or the
 * human-readable form when stdout is a terminal (SVC_LOG_FORMAT=json|pretty overrides).
 */
export function createLogger(name: string, level: string = process.env.SVC_LOG_LEVEL ?? "info"): Logger {
  const options = { name, level, redact: { paths: REDACT, censor: "[redacted]" } };
  return wantsPrettyLogs() ? pino(options, PinoPretty({ ...PRETTY_OPTIONS, sync: true })) : pino(options);
}

/** A logger that discards everything (tests, CLI quiet mode). */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
