import Ajv, { type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";

/**
 * OpenAPI 3.0 schema objects → JSON Schema for ajv: `nullable: true` becomes a null-admitting type
 * (or an anyOf with null when there is no type, e.g. next to $ref/allOf/anyOf).
 */
export function oasToJsonSchema(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(oasToJsonSchema);
  if (!s || typeof s !== "object") return s;
  const o: Record<string, unknown> = Object.fromEntries(Object.entries(s).map(([k, v]) => [k, oasToJsonSchema(v)]));
  if (o.nullable !== true) return o;
  delete o.nullable;
  if (typeof o.type === "string") {
    o.type = [o.type, "null"];
    if (Array.isArray(o.enum) && !o.enum.includes(null)) o.enum = [...o.enum, null];
    return o;
  }
  return { anyOf: [o, { type: "null" }] };
}

export interface SpecValidators {
  /** Validator for `#/components/schemas/<name>`. */
  component(name: string): ValidateFunction;
  /** Validator for an inline schema object whose $refs point into the document's components. */
  inline(schema: unknown): ValidateFunction;
}

/** One ajv instance holding a document's `components.schemas` under `key`. */
export function specValidators(schemas: Record<string, unknown>, key: string): SpecValidators {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  // The Airflow spec also writes `format: datetime` (no hyphen); check it as date-time.
  ajv.addFormat("datetime", ajv.formats["date-time"] as never);
  ajv.addSchema({ components: { schemas: oasToJsonSchema(schemas) } }, key);
  const rewrite = (s: unknown): unknown => JSON.parse(JSON.stringify(s).replace(/"#\/components\/schemas\//g, `"${key}#/components/schemas/`));
  return {
    component: (name) => ajv.compile({ $ref: `${key}#/components/schemas/${name}` }),
    inline: (schema) => ajv.compile(oasToJsonSchema(rewrite(schema)) as object),
  };
}
