import type { SvcConfig } from "@svc/config";

/** A captured log line of a test operator context. */
export interface LoggedLine {
  line: string;
  stream: string;
}

/**
 * An operator context (the engine's OperatorContext, @svc/engine/ports) around `config`, for
 * calling operators directly in tests, with the log captured. @svc/testing sits below the engine
 * and the operators (their tests use it), so it does not import their type: its type is what this
 * returns, and the compiler checks that it fits wherever a test passes it (or a spread of it with
 * `host`) as an OperatorContext.
 */
export function createTestOperatorContext(config: SvcConfig, taskId = "task") {
  const ac = new AbortController();
  const lines: LoggedLine[] = [];
  return {
    dagId: "test_dag",
    runId: "manual__test",
    taskId,
    tryNumber: 1,
    params: {} as Record<string, unknown>,
    config,
    log: (line: string, stream: "stdout" | "stderr" | "system" = "stdout") => void lines.push({ line, stream }),
    signal: ac.signal,
    lines,
    /** The log as text, one line per entry. */
    text: () => lines.map((l) => l.line).join("\n"),
    abort: (reason?: Error) => ac.abort(reason ?? new Error("cancelled by test")),
  };
}
