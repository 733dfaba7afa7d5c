import { createHash } from "node:crypto";
import { createWriteStream } from "node:fs";
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { DownloadError } from "./errors";
import { ProgressReporter } from "./progress";

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;

/** Options of a fetch. */
export interface FetchOptions {
  signal?: AbortSignal;
  /** Give up when the server sends nothing for this long (default 60 s). */
  idleTimeoutMs?: number;
}

/** The URL as it may be shown: without user and password. */
export function shownUrl(u: string | URL): string {
  const c = new URL(u);
  c.username = "";
  c.password = "";
  return c.href;
}

function request(u: URL, o: FetchOptions): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const get = u.protocol === "https:" ? https.get : http.get;
    const req = get(u, { signal: o.signal, headers: { "user-agent": "svc-vm" } }, resolve);
    const idle = o.idleTimeoutMs ?? 60_000;
    req.setTimeout(idle, () => req.destroy(new DownloadError(`${u.host} sent nothing for ${Math.round(idle / 1000)} s`)));
    req.on("error", (e) => reject(asDownloadError(e, u)));
  });
}

function asDownloadError(e: unknown, u: URL): Error {
  if (e instanceof DownloadError) return e;
  if ((e as Error).name === "AbortError") return new DownloadError(`download of ${shownUrl(u)} interrupted`);
  return new DownloadError(`cannot fetch ${shownUrl(u)}: ${(e as Error).message}`);
}

/** GET `url`, following up to 5 redirects (never from HTTPS down to HTTP); anything but 200 throws. */
export async function httpGet(url: string, o: FetchOptions = {}): Promise<{ res: IncomingMessage; url: URL }> {
  let current = new URL(url);
  for (let hop = 0; ; hop++) {
    const res = await request(current, o);
    const status = res.statusCode ?? 0;
    if (REDIRECTS.has(status) && res.headers.location) {
      res.resume();
      const next = new URL(res.headers.location, current);
      if (hop >= MAX_REDIRECTS) throw new DownloadError(`too many redirects from ${shownUrl(url)}`);
      if (next.protocol !== "https:" && next.protocol !== "http:") throw new DownloadError(`${shownUrl(current)} redirects to an unsupported URL scheme ${next.protocol}`);
      if (current.protocol === "https:" && next.protocol === "http:") throw new DownloadError(`refusing the redirect from ${shownUrl(current)} to plain HTTP ${shownUrl(next)}`);
      current = next;
      continue;
    }
    if (status !== 200) {
      res.resume();
      throw new DownloadError(`${shownUrl(current)} answered HTTP ${status}${res.statusMessage ? ` ${res.statusMessage}` : ""}`);
    }
    return { res, url: current };
  }
}

/** A small text file (a checksum list), at most `maxBytes`. */
export async function fetchText(url: string, o: FetchOptions = {}, maxBytes = 1024 * 1024): Promise<string> {
  const { res, url: at } = await httpGet(url, o);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) throw new DownloadError(`${shownUrl(at)} is larger than ${maxBytes} bytes; not a checksum file`);
      chunks.push(chunk);
    }
  } catch (e) {
    res.destroy();
    throw asDownloadError(e, at);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Stream `url` into `path` (created, never overwritten), hashing it with `algorithm` on the way. */
export async function downloadFile(
  url: string,
  path: string,
  algorithm: "sha256" | "sha512",
  o: FetchOptions & { onProgress?: (line: string) => void; progressIntervalMs?: number; label: string },
): Promise<{ bytes: number; hex: string }> {
  const { res, url: at } = await httpGet(url, o);
  const length = Number(res.headers["content-length"]);
  const progress = new ProgressReporter(o.label, Number.isSafeInteger(length) && length > 0 ? length : null, o.onProgress ?? (() => undefined), o.progressIntervalMs);
  const hash = createHash(algorithm);
  const meter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      hash.update(chunk);
      progress.add(chunk.length);
      cb(null, chunk);
    },
  });
  try {
    await pipeline(res, meter, createWriteStream(path, { flags: "wx", mode: 0o644 }), { signal: o.signal });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOSPC" || code === "EACCES" || code === "EEXIST") throw new DownloadError(`cannot write ${path}: ${code}`);
    if (o.signal?.aborted) throw new DownloadError(`download of ${shownUrl(at)} interrupted`);
    throw new DownloadError(`the transfer from ${shownUrl(at)} broke off after ${progress.bytes}${length ? ` of ${length}` : ""} bytes (${(e as Error).message})`);
  }
  if (Number.isSafeInteger(length) && progress.bytes !== length) throw new DownloadError(`the transfer from ${shownUrl(at)} ended after ${progress.bytes} of ${length} bytes`);
  progress.finish();
  return { bytes: progress.bytes, hex: hash.digest("hex") };
}
