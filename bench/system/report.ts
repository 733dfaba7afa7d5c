/** A two-column table, left column padded: the human-readable part of a benchmark's output. */
export function formatTable(title: string, rows: [string, string | number][]): string {
  const w = Math.max(...rows.map(([k]) => k.length), 0);
  return [title, ...rows.map(([k, v]) => `  ${k.padEnd(w)}  ${v}`)].join("\n");
}

/** The machine-readable last line: keys in the given order, numbers rounded to 0.001, NaN as null. */
export function jsonLine(o: Record<string, unknown>): string {
  return JSON.stringify(o, (_k, v: unknown) => (typeof v === "number" ? (Number.isFinite(v) ? Math.round(v * 1000) / 1000 : null) : v));
}
