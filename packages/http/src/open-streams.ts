import type { Response } from "express";
import { SvcError } from "@svc/errors";
import { sendProblem } from "./problem";

/** Seconds a client refused a stream is told to wait before trying again. */
export const STREAM_RETRY_AFTER_S = 5;

/** The Server-Sent Event streams a process holds open: capped, and all closed at once on shutdown. */
export interface OpenStreams {
  /**
   * Admit a new stream before its headers are sent. At the cap (or once the process is stopping)
   * it answers 503 problem JSON with Retry-After and returns false. `end` closes the stream (its
   * timers too); it is called by closeAll. The stream leaves the count when its response closes.
   */
  admit(res: Response, end: () => void): boolean;
  /** Refuse new streams and end every open one (shutdown: clients see the stream end and reconnect elsewhere). */
  closeAll(): void;
  /** Streams open now. */
  readonly size: number;
}

/** A registry of open streams for one process, at most `max` at a time (SVC_MAX_OPEN_STREAMS). */
export function createOpenStreams(max: number): OpenStreams {
  const open = new Map<Response, () => void>();
  let closing = false;
  return {
    admit(res, end) {
      if (closing || open.size >= max) {
        res.setHeader("Retry-After", String(STREAM_RETRY_AFTER_S));
        sendProblem(res, new SvcError("unavailable", closing ? "The server is shutting down; reconnect shortly" : `Too many open event streams (limit ${max}); retry shortly`));
        return false;
      }
      open.set(res, end);
      res.once("close", () => open.delete(res));
      return true;
    },
    closeAll() {
      closing = true;
      for (const [res, end] of [...open]) {
        open.delete(res);
        // The stream's connection is not reused: a stopping server closes it once the end is sent.
        if (!res.destroyed) res.once("finish", () => res.socket?.end());
        end();
      }
    },
    get size() {
      return open.size;
    },
  };
}
