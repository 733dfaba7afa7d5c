import Ajv, { type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import { cidrProblem } from "./cidr";

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
 * `min_role_values`: values that only a role and above may set (`{"0.0.0.0/0": admin}`): the param
 * equal to one, or an array param holding one (an annotation; callers enforce it with min_role's).
 */
paramsAjv.addKeyword({ keyword: "min_role_values", metaSchema: { type: "object", minProperties: 1, additionalProperties: { enum: ["user", "op", "admin"] } } });
/**
 * `min_role_cidr_span`: CIDR values that together hold more addresses of a family than a network of
 * the given prefix length (`{role: admin, ipv4: 8, ipv6: 32}`) only that role and above may set (an
 * annotation; callers enforce it with min_role's): two halves of the address space are not less than
 * the whole.
 */
paramsAjv.addKeyword({
  keyword: "min_role_cidr_span",
  metaSchema: {
    type: "object",
    required: ["role"],
    minProperties: 2,
    additionalProperties: false,
    properties: { role: { enum: ["user", "op", "admin"] }, ipv4: { type: "integer", minimum: 0, maximum: 32 }, ipv6: { type: "integer", minimum: 0, maximum: 128 } },
  },
});
/** `format: cidr`: an IPv4 or IPv6 network as a firewall takes it (no host bits; the whole space only as 0.0.0.0/0 or ::/0). */
paramsAjv.addFormat("cidr", { type: "string", validate: (s: string) => cidrProblem(s) === null });

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
