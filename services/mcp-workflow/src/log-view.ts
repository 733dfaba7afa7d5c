import type { EngineApi } from "@svc/engine";
import { tailLines, truncateText } from "@svc/mcp";

export interface LogQuery {
  tailLines: number;
  grep?: string;
  maxBytes: number;
  tryNumber?: number;
}

export interface LogView {
  try_number: number;
  content: string;
  lines_returned: number;
  lines_matched: number;
  truncated: boolean;
  finished: boolean;
}

/**
 * A bounded view of one try's log: grep (case-insensitive substring) first, then the last
 * tailLines lines, then at most maxBytes (the end is kept). Never floods a context.
 */
export async function readLog(api: EngineApi, dagId: string, runId: string, taskId: string, q: LogQuery): Promise<LogView> {
  const ti = await api.getTaskInstance(dagId, runId, taskId);
  const tryNumber = q.tryNumber ?? ti.try_number ?? 0;
  if (tryNumber < 1) return { try_number: 0, content: "", lines_returned: 0, lines_matched: 0, truncated: false, finished: false };
  // Without a filter only the tail is read; with one, every line is scanned.
  const chunk = await api.getTaskLog(dagId, runId, taskId, tryNumber, q.grep ? { fullContent: true } : { tail: q.tailLines });
  let lines = chunk.content.split("\n").filter((l) => l.length > 0);
  if (q.grep) {
    const needle = q.grep.toLowerCase();
    lines = lines.filter((l) => l.toLowerCase().includes(needle));
  }
  const matched = lines.length;
  const tail = tailLines(lines, q.tailLines);
  const cut = truncateText(tail.join("\n"), q.maxBytes);
  const returned = cut.text ? cut.text.split("\n").length : 0;
  return {
    try_number: tryNumber,
    content: cut.text,
    lines_returned: returned,
    lines_matched: matched,
    truncated: cut.truncated || tail.length < matched,
    finished: chunk.finished,
  };
}
