import { formatPath } from "./ast";
import { TemplateError } from "./errors";

/** Result of looking up something that does not exist; only the `default` filter may consume it. */
export class Missing {
  constructor(readonly path: readonly (string | number)[]) {}
  /** The error raised when a missing value is used. */
  error(): TemplateError {
    return this.path.length === 1 ? new TemplateError(`unknown variable '${String(this.path[0])}'`) : new TemplateError(`'${formatPath(this.path)}' is undefined`);
  }
}

/** Deepest data structure compared or printed; deeper data raises instead of overflowing the stack. */
const MAX_DATA_DEPTH = 100;

const hasOwn = (o: object, k: PropertyKey) => Object.prototype.hasOwnProperty.call(o, k);

/** Plain data objects only: class instances (Date, Map, functions) are opaque to templates. */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as object | null;
  // Object.prototype of any realm (ajv clones, vm contexts such as jest's): its own prototype is null.
  return proto === null || Object.getPrototypeOf(proto) === null;
}

/**
 * Own-property lookup on plain data. Inherited members (`constructor`, `__proto__` of the prototype,
 * `toString`) and functions are never reachable, so a template cannot get hold of code.
 */
export function lookup(container: unknown, key: string | number, path: readonly (string | number)[]): unknown {
  let v: unknown;
  if (Array.isArray(container)) {
    const n = typeof key === "number" ? key : /^-?\d+$/.test(key) ? Number(key) : NaN;
    if (!Number.isInteger(n)) return new Missing(path);
    const idx = n < 0 ? container.length + n : n;
    if (idx < 0 || idx >= container.length) return new Missing(path);
    v = container[idx];
  } else if (isPlainObject(container)) {
    const k = String(key);
    if (!hasOwn(container, k)) return new Missing(path);
    v = container[k];
  } else return new Missing(path);
  return v === undefined || typeof v === "function" || typeof v === "symbol" ? new Missing(path) : v;
}

/** Python / Jinja truthiness: false, null, 0, "", [] and {} are false. */
export function truthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false) return false;
  if (typeof v === "number") return v !== 0 && !Number.isNaN(v);
  if (typeof v === "string") return v.length > 0;
  if (Array.isArray(v)) return v.length > 0;
  if (isPlainObject(v)) return Object.keys(v).length > 0;
  return true;
}

/** Structural equality over JSON data, without type coercion (1 == "1" is false). */
export function deepEqual(a: unknown, b: unknown, depth = 0): boolean {
  if (depth > MAX_DATA_DEPTH) throw new TemplateError(`value nested deeper than ${MAX_DATA_DEPTH} levels`);
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => deepEqual(x, b[i], depth + 1));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => hasOwn(b, k) && deepEqual(a[k], b[k], depth + 1));
  }
  return false;
}

/** JSON text of a value; deep or cyclic data raises a TemplateError. */
export function toJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? "null";
  } catch (e) {
    throw new TemplateError(`value cannot be converted to JSON: ${(e as Error).message}`);
  }
}

/** Text form used when a value is embedded in a larger string. */
export function toText(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return toJson(v);
}

/** Name of a value's type for error messages. */
export function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "list";
  if (isPlainObject(v)) return "object";
  return typeof v;
}
