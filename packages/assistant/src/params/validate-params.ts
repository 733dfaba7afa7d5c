import Ajv, { type ValidateFunction } from "ajv";
import type { ParamSchema } from "@svc/dags";
import { hasShellSyntax } from "../router/safety-gate";

// strict off: DAG authors may use JSON Schema keywords ajv does not know (titles, examples, x-*).
const ajv = new Ajv({ strict: false, allErrors: true });
const compiled = new Map<string, ValidateFunction>();
// The same schema object (a catalogue's definitions are reused while unchanged) skips the key's JSON.
const bySchema = new WeakMap<ParamSchema, ValidateFunction>();

function validatorFor(schema: ParamSchema): ValidateFunction {
  const known = bySchema.get(schema);
  if (known) return known;
  // Defaults may hold {{ settings.* }} templates; they are not values to check here.
  const { default: _ignored, ...rest } = schema;
  const key = JSON.stringify(rest);
  let fn = compiled.get(key);
  if (!fn) {
    fn = ajv.compile(rest);
    compiled.set(key, fn);
  }
  bySchema.set(schema, fn);
  return fn;
}

/** Params that passed their DAG's property schema, and a warning per dropped value. */
export interface ValidatedParams {
  params: Record<string, unknown>;
  warnings: string[];
  /** Declared params whose value failed the schema, with the rule in words. */
  errors: { field: string; rule: string; value: unknown }[];
}

/** Keeps only declared params whose value passes the property schema; the rest become warnings. */
export function validateParams(schemas: Record<string, ParamSchema>, values: Record<string, unknown>): ValidatedParams {
  const params: Record<string, unknown> = {};
  const warnings: string[] = [];
  const errors: ValidatedParams["errors"] = [];
  for (const [key, value] of Object.entries(values)) {
    const schema = schemas[key];
    if (!schema) {
      warnings.push(`param ${key} dropped: the workflow does not declare it`);
      continue;
    }
    if (typeof value === "string" && hasShellSyntax(value)) {
      warnings.push(`param ${key} dropped: value contains shell syntax`);
      errors.push({ field: key, rule: `${key} must not contain shell syntax`, value });
      continue;
    }
    const check = validatorFor(schema);
    if (check(value)) params[key] = value;
    else {
      const rule = ajv.errorsText(check.errors, { dataVar: key });
      warnings.push(`param ${key}=${JSON.stringify(value)} dropped: ${rule}`);
      errors.push({ field: key, rule, value });
    }
  }
  return { params, warnings, errors };
}
