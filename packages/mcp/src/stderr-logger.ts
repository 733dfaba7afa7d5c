import pino from "pino";
import type { Logger } from "@svc/logger";

const REDACT = ["password", "*.password", "token", "*.token", "apiKey", "*.apiKey", "authorization", "*.authorization", "headers.authorization", "secret", "*.secret"];

/** Structured logs on stderr: on stdio, stdout is the protocol channel and must carry nothing else. */
export function createStderrLogger(name: string, level: string): Logger {
  return pino({ name, level, redact: { paths: REDACT, censor: "[redacted]" } }, pino.destination({ fd: 2, sync: true }));
}
