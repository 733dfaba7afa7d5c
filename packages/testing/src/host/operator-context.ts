import type { SvcConfig } from "@svc/config";

/** A captured log line of a test operator context. */
export interface LoggedLine {
  line: string;
  stream: string;
}

/**
 * An operator context (the engine's OperatorContext, @svc/engine/ports) for calling operators
 * directly in tests, with the log captured. @svc/testing sits below the engine and the operators
 * (their tests use it), so it names the context's fields instead of importing their type: a test
 * passes it, or a spread of it with `host`, where an OperatorContext is expected, and the compiler
 * checks that it fits.
 */
export interface TestOperatorContext {
  dagId: string;
  runId: string;
  taskId: string;
  tryNumber: number;
  params: Record<string, unknown>;
  config: SvcConfig;
  log(line: string, stream?: "stdout" | "stderr" | "system"): void;
  signal: AbortSignal;
  lines: LoggedLine[];
  /** The log as text, one line per entry. */
  text(): string;
  abort(reason?: Error): void;
}

/** Build a context around `config`. */
export function createTestOperatorContext(config: SvcConfig, taskId = "task"): TestOperatorContext {
  const ac = new AbortController();
  const lines: LoggedLine[] = [];
  return {
    dagId: "test_dag",
    runId: "manual__test",
    taskId,
    tryNumber: 1,
    params: {},
    config,
    log: (line, stream = "stdout") => void lines.push({ line, stream }),
    signal: ac.signal,
    lines,
    text: () => lines.map((l) => l.line).join("\n"),
    abort: (reason) => ac.abort(reason ?? new Error("cancelled by test")),
  };
}
