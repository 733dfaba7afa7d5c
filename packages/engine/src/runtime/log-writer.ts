import type { Db } from "@svc/db";
import type { LogStream } from "../ports";

export interface LogLine {
  stream: LogStream;
  line: string;
}

export interface LogWriter {
  write(line: string, stream?: LogStream): void;
  /** Send what is buffered now; resolves after the attempt (lines that could not be written stay queued). */
  flush(): Promise<void>;
  /**
   * Stop writing: waits for the insert in flight and hands back every line not yet written (failed
   * batches included, in order, with the cap notes), so the caller commits them with the try's outcome.
   */
  detach(): Promise<LogLine[]>;
}

export interface LogWriterOptions {
  /** Batch window (default 100 ms). */
  intervalMs?: number;
  /** Lines per insert (default 500). */
  maxBatch?: number;
  /** Bytes of stdout/stderr stored per try; later lines are counted, not stored (default 16 MiB). */
  maxBytes?: number;
  /** Bytes of unwritten lines held while inserts fail; past it the oldest are dropped (default 4 MiB). */
  maxBufferedBytes?: number;
  /** Waits before each retry of a failed insert; the last repeats (default 200 ms … 5 s). */
  retryMs?: readonly number[];
}

const MAX_LINE = 16_384;
const RETRY_MS = [200, 500, 1000, 2000, 5000];

/** A line as Postgres can store it: NULs stripped (text cannot hold them), pathological lengths capped. */
// eslint-disable-next-line no-control-regex -- NUL is the character this strips
export const cleanLogLine = (line: string): string => line.replace(/\u0000/g, "").slice(0, MAX_LINE);

/** A queued line; `dropped` marks the note standing in for lines dropped from the buffer. */
type Queued = LogLine & { bytes: number; dropped?: number };

const droppedNote = (n: number): string => `${n} log line${n === 1 ? "" : "s"} dropped: the database was unreachable and the buffer of unwritten lines was full`;

/**
 * Streams a try's log lines to Postgres in small batches (every `intervalMs` or `maxBatch` lines),
 * so a follower sees lines while the task runs. Order is kept: one insert at a time, and a failed
 * insert (database restarting) is retried with backoff before anything after it. Memory is bounded
 * twice: past `maxBytes` a try's output is only counted (one note at the end says how much), and
 * while inserts fail the unwritten lines are capped at `maxBufferedBytes` by dropping the oldest
 * (one note where they were says how many).
 */
export function createLogWriter(
  db: Db,
  key: { dagId: string; runId: string; taskId: string; tryNumber: number },
  onError: (e: unknown) => void,
  opts: LogWriterOptions = {},
): LogWriter {
  const intervalMs = opts.intervalMs ?? 100;
  const maxBatch = opts.maxBatch ?? 500;
  const maxBytes = opts.maxBytes ?? 16 * 1024 * 1024;
  const maxBuffered = opts.maxBufferedBytes ?? 4 * 1024 * 1024;
  const retryMs = opts.retryMs?.length ? opts.retryMs : RETRY_MS;
  let queue: Queued[] = [];
  let queuedBytes = 0;
  let stored = 0;
  const over = { lines: 0, bytes: 0 };
  let failures = 0;
  let inFlight: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let detached = false;

  const arm = (ms: number) => {
    if (!timer && !detached) timer = setTimeout(() => ((timer = null), void send()), ms);
  };

  /**
   * Drop the oldest unwritten lines until the buffer is back under 90 % of its cap (so a chatty
   * task during an outage sheds in chunks, not line by line), leaving one note in front instead.
   */
  const shed = () => {
    let dropped = 0;
    const lines = queue.filter((q) => (q.dropped === undefined ? true : ((dropped += q.dropped), false)));
    let i = 0;
    while (queuedBytes > maxBuffered * 0.9 && i < lines.length) queuedBytes -= lines[i++]!.bytes;
    dropped += i;
    queue = [{ stream: "system", line: droppedNote(dropped), bytes: 0, dropped }, ...lines.slice(i)];
  };

  const send = (): Promise<void> => {
    if (inFlight || detached || !queue.length) return inFlight ?? Promise.resolve();
    if (timer) {
      clearTimeout(timer);
      timer = null;
    }
    // At most maxBatch lines and a quarter of the buffer cap: an insert in flight never crowds out the buffer.
    let n = 0;
    for (let bytes = 0; n < queue.length && n < maxBatch && (n === 0 || bytes + queue[n]!.bytes <= maxBuffered / 4); n++) bytes += queue[n]!.bytes;
    const batch = queue.slice(0, n);
    queue = queue.slice(n);
    const rows = batch.map((b) => ({ dag_id: key.dagId, run_id: key.runId, task_id: key.taskId, try_number: key.tryNumber, stream: b.stream, line: b.line }));
    inFlight = db
      .insertInto("task_log")
      .values(rows)
      .execute()
      .then(
        () => {
          for (const b of batch) queuedBytes -= b.bytes;
          failures = 0;
          inFlight = null;
          if (queue.length >= maxBatch) void send();
          else if (queue.length) arm(intervalMs);
        },
        (e: unknown) => {
          // Kept in front of what came since, and retried after a pause; detach() hands them back.
          queue = [...batch, ...queue];
          if (queuedBytes > maxBuffered) shed();
          inFlight = null;
          onError(e);
          arm(retryMs[Math.min(failures++, retryMs.length - 1)]!);
        },
      );
    return inFlight;
  };

  return {
    write(raw, stream = "stdout") {
      if (detached) return;
      const line = cleanLogLine(raw);
      const bytes = Buffer.byteLength(line) + 1;
      // The try's own notes (started, failed, retrying) are always kept; output counts against the cap.
      if (stream !== "system") {
        if (stored + bytes > maxBytes || over.lines) {
          over.lines++;
          over.bytes += bytes;
          return;
        }
        stored += bytes;
      }
      queue.push({ stream, line, bytes });
      queuedBytes += bytes;
      if (queuedBytes > maxBuffered) shed();
      if (failures) return; // a retry is scheduled
      if (queue.length >= maxBatch) void send();
      else arm(intervalMs);
    },
    flush: () => send(),
    async detach() {
      detached = true;
      if (timer) {
        clearTimeout(timer);
        timer = null;
      }
      while (inFlight) await inFlight;
      const rest: LogLine[] = queue.map(({ stream, line }) => ({ stream, line }));
      queue = [];
      queuedBytes = 0;
      if (over.lines) {
        rest.push({
          stream: "system",
          line: `log size cap of ${maxBytes} bytes per try reached: ${over.lines} more line${over.lines === 1 ? "" : "s"} (${over.bytes} bytes) not stored (SVC_LOG_MAX_BYTES_PER_TRY)`,
        });
      }
      return rest;
    },
  };
}
