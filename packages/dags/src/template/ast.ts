/** Expression tree of the template language. Only data access and comparisons: nothing can call code. */
export type Node =
  | { kind: "literal"; value: null | boolean | number | string }
  | { kind: "var"; name: string }
  /** `.name`, `['name']` or `[0]`: a static key. */
  | { kind: "member"; object: Node; key: string | number }
  /** `[expr]` with a computed key. */
  | { kind: "index"; object: Node; index: Node }
  | { kind: "list"; items: Node[] }
  | { kind: "not"; operand: Node }
  | { kind: "neg"; operand: Node }
  | { kind: "logic"; op: "and" | "or"; left: Node; right: Node }
  | { kind: "compare"; op: CompareOp; left: Node; right: Node }
  /** `a ~ b ~ c`: Jinja's concatenation, each part as text. */
  | { kind: "concat"; parts: Node[] }
  | { kind: "filter"; name: string; input: Node; args: Node[] };

/** Comparison operators (`in` / `not in` test membership). */
export type CompareOp = "==" | "!=" | "<" | "<=" | ">" | ">=" | "in" | "not in";

/** Dotted path of a static member chain (`ti.a.output[0]`), or undefined when part of it is computed. */
export function staticPath(node: Node): (string | number)[] | undefined {
  if (node.kind === "var") return [node.name];
  if (node.kind === "member") {
    const base = staticPath(node.object);
    return base ? [...base, node.key] : undefined;
  }
  return undefined;
}

/** Human form of a path: `ti.a.output[0]`. */
export function formatPath(path: readonly (string | number)[]): string {
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : /^[A-Za-z_][A-Za-z0-9_]*$/.test(p) ? (i === 0 ? p : `.${p}`) : `[${JSON.stringify(p)}]`)).join("");
}
