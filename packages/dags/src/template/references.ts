import { staticPath, type Node } from "./ast";
import { compileTemplate, isTemplate } from "./compile";

/** A variable a template reads: its static path, and whether a computed subscript follows it. */
export interface TemplateReference {
  path: (string | number)[];
  /** True when the path continues with `[expr]`, so only this prefix is known before run time. */
  dynamic: boolean;
}

/** Every variable path a template string reads (throws TemplateError on syntax errors). */
export function templateReferences(text: string): TemplateReference[] {
  if (!isTemplate(text)) return [];
  const out: TemplateReference[] = [];
  for (const part of compileTemplate(text).parts) if (typeof part !== "string") collect(part.expr, out);
  return out;
}

function collect(node: Node, out: TemplateReference[]): void {
  switch (node.kind) {
    case "literal":
      return;
    case "var":
    case "member": {
      const path = staticPath(node);
      if (path) out.push({ path, dynamic: false });
      else if (node.kind === "member") collect(node.object, out);
      return;
    }
    case "index": {
      const base = staticPath(node.object);
      if (base) out.push({ path: base, dynamic: true });
      else collect(node.object, out);
      collect(node.index, out);
      return;
    }
    case "list":
      node.items.forEach((n) => collect(n, out));
      return;
    case "concat":
      node.parts.forEach((n) => collect(n, out));
      return;
    case "not":
    case "neg":
      collect(node.operand, out);
      return;
    case "logic":
    case "compare":
      collect(node.left, out);
      collect(node.right, out);
      return;
    case "filter":
      collect(node.input, out);
      node.args.forEach((n) => collect(n, out));
      return;
  }
}
