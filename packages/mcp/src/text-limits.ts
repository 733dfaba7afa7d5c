/** Keep at most `maxBytes` UTF-8 bytes of the END of `text` (logs: the tail matters); says whether it cut. */
export function truncateText(text: string, maxBytes: number): { text: string; truncated: boolean } {
  const buf = Buffer.from(text, "utf8");
  if (buf.length <= maxBytes) return { text, truncated: false };
  let start = buf.length - maxBytes;
  // Do not start inside a multi-byte character.
  while (start < buf.length && (buf[start]! & 0xc0) === 0x80) start++;
  return { text: buf.subarray(start).toString("utf8"), truncated: true };
}

/** The last `n` lines of `lines` (all when n is undefined). */
export function tailLines(lines: readonly string[], n: number | undefined): string[] {
  return n === undefined || lines.length <= n ? [...lines] : lines.slice(lines.length - n);
}
