import type { Node } from "./ast";
import { TemplateError } from "./errors";
import { lexExpression } from "./lexer";
import { parseExpression } from "./parser";

/** A parsed template: literal text and expressions in order. */
export interface CompiledTemplate {
  parts: (string | { expr: Node; source: string })[];
  /** The whole string is one expression (surrounding whitespace aside): it renders to the raw value. */
  single: Node | undefined;
}

/** Longest string treated as a template; longer input fails instead of tying up the process. */
export const MAX_TEMPLATE_LENGTH = 100_000;

const CACHE_LIMIT = 2000;
const cache = new Map<string, CompiledTemplate>();

/** True when a string holds template syntax. */
export function isTemplate(text: string): boolean {
  return text.includes("{{") || text.includes("{%");
}

/** Parse a template string (cached); throws TemplateError on syntax errors. */
export function compileTemplate(text: string): CompiledTemplate {
  const hit = cache.get(text);
  if (hit) return hit;
  const compiled = compileUncached(text);
  if (text.length <= 10_000) {
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
    cache.set(text, compiled);
  }
  return compiled;
}

function compileUncached(text: string): CompiledTemplate {
  if (text.length > MAX_TEMPLATE_LENGTH) throw new TemplateError(`template longer than ${MAX_TEMPLATE_LENGTH} characters`);
  const stmt = text.indexOf("{%");
  if (stmt >= 0) {
    throw new TemplateError(`template syntax error: statements '{% ... %}' are not supported (position ${stmt + 1}); use an expression or the task's 'when'`);
  }
  const parts: CompiledTemplate["parts"] = [];
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf("{{", i);
    if (open < 0) {
      parts.push(text.slice(i));
      break;
    }
    if (open > i) parts.push(text.slice(i, open));
    const { tokens, end } = lexExpression(text, open + 2);
    parts.push({ expr: parseExpression(tokens), source: text.slice(open, end) });
    i = end;
  }
  const exprs = parts.filter((p) => typeof p !== "string");
  const onlyBlank = parts.every((p) => typeof p !== "string" || p.trim() === "");
  const single = exprs.length === 1 && onlyBlank ? (exprs[0] as { expr: Node }).expr : undefined;
  return { parts, single };
}
