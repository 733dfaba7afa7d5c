import type { Request, Response } from "express";
import type { OpenStreams } from "@svc/http";
import type { Logger } from "@svc/logger";

export interface EventStreamOptions {
  /** How often Postgres is read for changes. */
  pollMs: number;
  /** Comment lines that keep idle connections (and proxies) open. */
  heartbeatMs: number;
  /** The process's open streams: capped (503 past SVC_MAX_OPEN_STREAMS) and closed on shutdown. */
  streams?: OpenStreams;
}

/** Sends one named event to the page. */
export type SendEvent = (event: string, data: unknown) => void;

/**
 * Serve Server-Sent Events fed by a poll: opens the stream, runs `poll` now and then every `pollMs`
 * until the client goes away, with heartbeats in between. `poll` sends only what changed. A failed
 * poll is logged with `context` and announced as a `problem` event; the next one tries again.
 */
export async function serveEventStream(
  req: Request,
  res: Response,
  logger: Logger,
  opts: EventStreamOptions,
  context: Record<string, unknown>,
  poll: (send: SendEvent) => Promise<void>,
): Promise<void> {
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  const end = () => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    clearTimeout(timer);
    res.end();
  };
  if (opts.streams && !opts.streams.admit(res, end)) return;
  res.status(200).set({ "Content-Type": "text/event-stream", "Cache-Control": "no-cache, no-transform", Connection: "keep-alive", "X-Accel-Buffering": "no" });
  res.flushHeaders();
  res.write("retry: 1000\n\n");
  const send: SendEvent = (event, data) => {
    if (!res.writableEnded && !res.destroyed) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };

  const heartbeat = setInterval(() => void (!res.writableEnded && res.write(": ping\n\n")), opts.heartbeatMs);
  req.on("close", end);

  const loop = async () => {
    if (closed) return;
    try {
      await poll(send);
    } catch (e) {
      logger.warn({ ...context, err: String(e) }, "event stream poll failed");
      send("problem", { message: "status temporarily unavailable; retrying" });
    }
    if (!closed) timer = setTimeout(() => void loop(), opts.pollMs);
  };
  await loop();
}
