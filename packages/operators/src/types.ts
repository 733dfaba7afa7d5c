import type { z } from "zod";
import type { SvcConfig } from "@svc/config";

export type LogStream = "stdout" | "stderr" | "system";

/** What an operator gets for one try. Everything it needs comes in here: no globals. */
export interface OperatorContext {
  dagId: string;
  runId: string;
  taskId: string;
  tryNumber: number;
  /** Resolved run params (conf merged with defaults). */
  params: Record<string, unknown>;
  config: SvcConfig;
  /** Append one line to this try's log (streamed to Postgres as it comes). */
  log(line: string, stream?: LogStream): void;
  /** Aborted on execution_timeout or cancel; operators must stop their child work promptly. */
  signal: AbortSignal;
}

/** An operator: a validated args schema and an idempotent run function (at-least-once delivery). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a registry holds operators of different argument types; each run() gets args its own schema parsed
export interface Operator<A = any> {
  name: string;
  description: string;
  /** zod schema of rendered args; also used at import time to reject bad DAGs. */
  args: z.ZodType<A>;
  /**
   * Finishes at once and touches nothing outside the process (noop): a worker may run it before
   * claiming the try and write its success in one step. A duplicate delivery may then run it twice,
   * which is why it must have no effect; only one outcome is ever written.
   */
  instant?: boolean;
  /** Returns the try's output (JSON), exposed to downstream tasks as `ti.<task>.output`. */
  run(args: A, ctx: OperatorContext): Promise<Record<string, unknown> | void>;
}
