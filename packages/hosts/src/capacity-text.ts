// What a host prints about its capacity (df, /proc/meminfo, nproc), read in one place: the probe,
// the host_check operator and the MCP preflight measure hosts with these commands and parsers.
import { dirname } from "node:path";

const GIB = 1024 ** 3;

/** `df` of a path, in bytes: the size and what is available (parsed by parseDf). */
export const dfArgv = (path: string): string[] => ["df", "-B1", "--output=size,avail", "--", path];

/** The same command as text for a host script, PATH the shell's `"$p"`. */
export const DF_SCRIPT = `df -B1 --output=size,avail -- "$p"`;

/** `df -B1 --output=size,avail PATH`: bytes, as GiB (floor). */
export function parseDf(text: string): { totalGb: number; freeGb: number } {
  const line = text.trim().split("\n")[1];
  const m = line ? /^\s*(\d+)\s+(\d+)\s*$/.exec(line) : null;
  if (!m) throw new Error(`cannot read df output: ${text.trim().slice(0, 200)}`);
  return { totalGb: Math.floor(Number(m[1]) / GIB), freeGb: Math.floor(Number(m[2]) / GIB) };
}

/** Free GiB from df's output, or null when it is not df's answer. */
export function dfFreeGb(text: string | undefined): number | null {
  try {
    return text === undefined ? null : parseDf(text).freeGb;
  } catch {
    return null;
  }
}

/** `/proc/meminfo`: MemAvailable in MiB (floor), or null when the line is missing. */
export function memAvailableMb(text: string | undefined): number | null {
  const m = /MemAvailable:\s+(\d+) kB/.exec(text ?? "");
  return m ? Math.floor(Number(m[1]) / 1024) : null;
}

/** `nproc`: the CPU count, or null when the answer is not a positive number. */
export function cpuCount(text: string | undefined): number | null {
  const n = Number(text?.trim());
  return text !== undefined && Number.isFinite(n) && n > 0 ? n : null;
}

/** A directory and its parents up to the root: where df measures a directory not made yet. */
export function pathAndParents(dir: string): string[] {
  const out: string[] = [];
  for (let p = dir; ; p = dirname(p)) {
    out.push(p);
    if (p === "/" || p === "." || p === dirname(p)) return out;
  }
}
