import YAML from "yaml";

export const OUTPUT_FORMATS = ["table", "json", "yaml", "plain"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export type Row = Record<string, unknown>;

/**
 * Airflow's console normalisation: values print as Python's str() would (True/False), None stays
 * null (empty in tables), lists join with "," in tables and stay lists in json/yaml.
 */
export function normalize(value: unknown, format: OutputFormat): unknown {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return format === "table" || format === "plain" ? value.map((v) => normalize(v, format)).join(",") : value.map((v) => normalize(v, format));
  if (typeof value === "object")
    return format === "table" || format === "plain" ? JSON.stringify(value) : Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalize(v, format)]));
  if (typeof value === "boolean") return value ? "True" : "False";
  const primitive = value as string | number | bigint | symbol;
  return String(primitive);
}

function grid(columns: string[], rows: string[][], format: "table" | "plain"): string {
  const widths = columns.map((c, i) => Math.max(c.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join(format === "table" ? " | " : "  ")
      .trimEnd();
  const out = [line(columns)];
  if (format === "table") out.push(widths.map((w) => "=".repeat(w)).join("=+="));
  for (const r of rows) out.push(line(r));
  return out.join("\n") + "\n";
}

/** Render rows with fixed columns in the requested format; "No data found" when there are none. */
export function renderRows(rows: Row[], columns: string[], format: OutputFormat): string {
  if (!rows.length) return "No data found\n";
  const data = rows.map((r) => Object.fromEntries(columns.map((c) => [c, normalize(r[c], format)])));
  if (format === "json") return JSON.stringify(data, null, 2) + "\n";
  if (format === "yaml") return YAML.stringify(data);
  return grid(
    columns,
    data.map((d) => columns.map((c) => (d[c] === null ? "" : String(d[c] as string)))),
    format,
  );
}
