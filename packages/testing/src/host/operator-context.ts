import type { SvcConfig } from "@svc/config";
import type { OperatorContext } from "@svc/operators";

/** A captured log line of a test operator context. */
export interface LoggedLine {
  line: string;
  stream: string;
}

/** An OperatorContext for calling operators directly in tests, with the log captured. */
export interface TestOperatorContext extends OperatorContext {
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
