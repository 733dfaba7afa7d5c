import pino from "pino";
import PinoPretty from "pino-pretty";
import { PRETTY_OPTIONS, wantsPrettyLogs, type LogFormat } from "./pretty";

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
 * human-readable form when stdout is a terminal (`format` json|pretty overrides). A service passes
 * its config's logLevel and logFormat (SVC_LOG_LEVEL, SVC_LOG_FORMAT).
 */
export function createLogger(name: string, level = "info", format: LogFormat = "auto"): Logger {
  const options = { name, level, redact: { paths: REDACT, censor: "[redacted]" } };
  return wantsPrettyLogs(format) ? pino(options, PinoPretty({ ...PRETTY_OPTIONS, sync: true })) : pino(options);
}

/** A logger that discards everything (tests, CLI quiet mode). */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
