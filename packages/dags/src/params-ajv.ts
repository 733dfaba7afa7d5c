import Ajv, { type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";

/**
 * The one Ajv instance for DAG params. Strict about unknown keywords and formats (a typo such as
 * `patern` is an import error), lenient about type-keyword pairing, which JSON Schema allows.
 */
export const paramsAjv = addFormats(
  new Ajv({ allErrors: true, useDefaults: true, strict: true, strictTypes: false, strictTuples: false, strictRequired: false, allowUnionTypes: true }),
);
/** `min_role`: the lowest API role that may set the param to anything but its default (an annotation; callers enforce it). */
paramsAjv.addKeyword({ keyword: "min_role", metaSchema: { enum: ["user", "op", "admin"] } });

/**
 * Compile a schema without keeping it in Ajv's cache (Ajv caches by object identity, and every
 * re-parse of a DAG file produces new objects). Throws Ajv's error for an invalid schema.
 */
export function compileUncached(schema: object): ValidateFunction {
  try {
    return paramsAjv.compile(schema);
  } finally {
    paramsAjv.removeSchema(schema);
  }
}
