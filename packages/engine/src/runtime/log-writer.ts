import type { Db } from "@svc/db";
import type { LogStream } from "@svc/operators";

export interface LogLine {
  stream: LogStream;
  line: string;
}

export interface LogWriter {
  write(line: string, stream?: LogStream): void;
  /** Write everything buffered; resolves when it is in Postgres. */
  flush(): Promise<void>;
  /** Stop writing; waits for inserts in flight and hands back the lines not yet written, so the caller can commit them with the try's outcome. */
  detach(): Promise<LogLine[]>;
}

const MAX_LINE = 16_384;

/** A line as Postgres can store it: NULs stripped (text cannot hold them), pathological lengths capped. */
// eslint-disable-next-line no-control-regex -- NUL is the character this strips
export const cleanLogLine = (line: string): string => line.replace(/\u0000/g, "").slice(0, MAX_LINE);

/**
 * Streams a try's log lines to Postgres in small batches (every `intervalMs` or `maxBatch` lines),
 * so a follower sees lines while the task runs. Order is kept: one insert at a time.
 */
export function createLogWriter(
  db: Db,
  key: { dagId: string; runId: string; taskId: string; tryNumber: number },
  onError: (e: unknown) => void,
  opts: { intervalMs?: number; maxBatch?: number } = {},
): LogWriter {
  const intervalMs = opts.intervalMs ?? 100;
  const maxBatch = opts.maxBatch ?? 500;
  let buf: LogLine[] = [];
  let chain: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | null = null;

  const drain = () => {
    if (timer) {
      clearTimeout(timer);
      timer = null;
    }
    if (!buf.length) return chain;
    const rows = buf.map((b) => ({ dag_id: key.dagId, run_id: key.runId, task_id: key.taskId, try_number: key.tryNumber, stream: b.stream, line: b.line }));
    buf = [];
    chain = chain
      .then(() =>
        db
          .insertInto("task_log")
          .values(rows)
          .execute()
          .then(() => undefined),
      )
      .catch(onError);
    return chain;
  };

  return {
    write(line, stream = "stdout") {
      buf.push({ stream, line: cleanLogLine(line) });
      if (buf.length >= maxBatch) void drain();
      else if (!timer) timer = setTimeout(() => void drain(), intervalMs);
    },
    flush: () => drain(),
    async detach() {
      if (timer) {
        clearTimeout(timer);
        timer = null;
      }
      await chain;
      const rest = buf;
      buf = [];
      return rest;
    },
  };
}
