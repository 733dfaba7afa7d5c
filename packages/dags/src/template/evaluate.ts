import { staticPath, type Node } from "./ast";
import { TemplateError } from "./errors";
import { FILTERS } from "./filters";
import { Missing, deepEqual, isPlainObject, lookup, toText, truthy, typeName } from "./values";

/** Evaluate an expression tree against plain data; a Missing result is returned, not thrown. */
export function evaluate(node: Node, ctx: Record<string, unknown>): unknown {
  switch (node.kind) {
    case "literal":
      return node.value;
    case "var":
      return lookup(ctx, node.name, [node.name]);
    case "member": {
      const obj = evaluate(node.object, ctx);
      const path = [...pathOf(node.object, obj), node.key];
      return obj instanceof Missing ? new Missing(path) : lookup(obj, node.key, path);
    }
    case "index": {
      const obj = evaluate(node.object, ctx);
      const key = need(evaluate(node.index, ctx));
      if (typeof key !== "string" && !(typeof key === "number" && Number.isInteger(key))) {
        throw new TemplateError(`subscript must be a string or an integer, got ${typeName(key)}`);
      }
      const path = [...pathOf(node.object, obj), key];
      return obj instanceof Missing ? new Missing(path) : lookup(obj, key, path);
    }
    case "list":
      return node.items.map((item) => need(evaluate(item, ctx)));
    case "not":
      return !truthy(need(evaluate(node.operand, ctx)));
    case "neg": {
      const v = need(evaluate(node.operand, ctx));
      if (typeof v !== "number") throw new TemplateError(`unary '-' needs a number, got ${typeName(v)}`);
      return -v;
    }
    case "logic": {
      // Python semantics: `a or b` yields a when a is truthy, else b (and the mirror for `and`).
      const left = need(evaluate(node.left, ctx));
      if (node.op === "and" ? !truthy(left) : truthy(left)) return left;
      return need(evaluate(node.right, ctx));
    }
    case "concat":
      return node.parts.map((p) => toText(need(evaluate(p, ctx)))).join("");
    case "compare":
      return compare(node.op, need(evaluate(node.left, ctx)), need(evaluate(node.right, ctx)));
    case "filter": {
      const spec = FILTERS[node.name]!;
      const input = evaluate(node.input, ctx);
      const args = node.args.map((a) => need(evaluate(a, ctx)));
      return spec.apply(spec.acceptsMissing ? input : need(input), args);
    }
  }
}

/** Raise for a missing value; otherwise pass it through. */
export function need(v: unknown): unknown {
  if (v instanceof Missing) throw v.error();
  return v;
}

function pathOf(node: Node, value: unknown): (string | number)[] {
  if (value instanceof Missing) return [...value.path];
  return staticPath(node) ?? ["(value)"];
}

function compare(op: string, a: unknown, b: unknown): boolean {
  switch (op) {
    case "==":
      return deepEqual(a, b);
    case "!=":
      return !deepEqual(a, b);
    case "in":
      return contains(b, a);
    case "not in":
      return !contains(b, a);
  }
  if (!((typeof a === "number" && typeof b === "number") || (typeof a === "string" && typeof b === "string"))) {
    throw new TemplateError(`cannot compare ${typeName(a)} ${op} ${typeName(b)}`);
  }
  switch (op) {
    case "<":
      return a < b;
    case "<=":
      return a <= b;
    case ">":
      return a > b;
    default:
      return a >= b;
  }
}

function contains(haystack: unknown, needle: unknown): boolean {
  if (Array.isArray(haystack)) return haystack.some((x) => deepEqual(x, needle));
  if (typeof haystack === "string") {
    if (typeof needle !== "string") throw new TemplateError(`'in <string>' needs a string on the left, got ${typeName(needle)}`);
    return haystack.includes(needle);
  }
  if (isPlainObject(haystack)) {
    if (typeof needle !== "string") throw new TemplateError(`'in <object>' needs a string key on the left, got ${typeName(needle)}`);
    return Object.prototype.hasOwnProperty.call(haystack, needle);
  }
  throw new TemplateError(`'in' needs a list, string or object on the right, got ${typeName(haystack)}`);
}
