import Ajv, { type ErrorObject } from "ajv";
import dagSchema from "../dag.schema.json";
import { formatFieldPath } from "./problems";
import { didYouMean } from "./suggest";
import type { ProblemSink } from "./raw-dag";

const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: true, allowUnionTypes: true, verbose: true });
const validateDagSchema = ajv.compile(dagSchema);

/** The published DAG file schema (packages/dags/dag.schema.json), as enforced by the parser. */
export const DAG_FILE_SCHEMA: unknown = dagSchema;

const PATTERN_HINTS: Record<string, string> = {
  "#/definitions/dag_id/pattern": "letters, digits, '_', '.' and '-', starting with a letter, at most 100 characters",
  "#/definitions/identifier/pattern": "letters, digits and '_', starting with a letter or a single '_', at most 100 characters",
};

/**
 * Validate parsed YAML against the published schema, filling schema defaults in place.
 * Returns false (after reporting each violation) when the data does not match.
 */
export function checkDagSchema(data: unknown, sink: ProblemSink): boolean {
  if (validateDagSchema(data)) return true;
  for (const err of validateDagSchema.errors ?? []) report(err, sink);
  return false;
}

function report(err: ErrorObject, sink: ProblemSink): void {
  const path = err.instancePath
    .split("/")
    .slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
  const where = formatFieldPath(path) || "file";
  const p = err.params as Record<string, unknown>;
  switch (err.keyword) {
    case "propertyNames":
      return; // the nested pattern error names the property
    case "required":
      return sink.at(path, `${where}: missing required field '${String(p.missingProperty)}'`);
    case "additionalProperties": {
      const prop = String(p.additionalProperty);
      const allowed = Object.keys((err.parentSchema as { properties?: object } | undefined)?.properties ?? {});
      return sink.atKey(path, prop, `${where}: unknown field '${prop}'${didYouMean(prop, allowed)}`);
    }
    case "enum": {
      const allowed = (p.allowedValues as unknown[]).map(String);
      return sink.at(path, `${where}: '${String(err.data)}' is not one of ${allowed.join(", ")}${didYouMean(String(err.data), allowed)}`);
    }
    case "type":
      return sink.at(path, `${where}: must be ${String(p.type).split(",").join(" or ")}, got ${describeType(err.data)}`);
    case "pattern": {
      if (err.propertyName !== undefined) {
        const hint = PATTERN_HINTS[err.schemaPath] ?? `must match ${String(p.pattern)}`;
        return sink.atKey(path, err.propertyName, `${where}: invalid name '${err.propertyName}': ${hint}`);
      }
      if (err.schemaPath.includes("duration/pattern")) {
        return sink.at(path, `${where}: invalid duration '${String(err.data)}' (use seconds, or 250ms, 30s, 5m, 1h, 1h30m, 2d)`);
      }
      const hint = PATTERN_HINTS[err.schemaPath];
      return sink.at(path, `${where}: invalid value '${String(err.data)}'${hint ? `: ${hint}` : `: ${err.message ?? "does not match"}`}`);
    }
    case "uniqueItems": {
      const list = err.data as unknown[];
      const dup = Math.max(Number(p.i), Number(p.j));
      return sink.at([...path, dup], `${where}: duplicate entry '${String(list[dup])}'`);
    }
    default:
      return sink.at(path, `${where}: ${err.message ?? "is invalid"}`);
  }
}

function describeType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a mapping";
  return `${typeof v} ${JSON.stringify(v)}`.slice(0, 80);
}
