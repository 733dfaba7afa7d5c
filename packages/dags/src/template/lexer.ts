import { TemplateError } from "./errors";

/** One lexical token of an expression; `pos` is its 0-based offset in the template string. */
export type Token =
  | { t: "num"; v: number; pos: number }
  | { t: "str"; v: string; pos: number }
  | { t: "name"; v: string; pos: number }
  | { t: "op"; v: string; pos: number }
  | { t: "close"; v: "}}"; pos: number };

/** Tokens in one expression; bounds the evaluator's recursion for long `a and b and ...` chains. */
export const MAX_TOKENS = 1000;

const TWO_CHAR_OPS = new Set(["==", "!=", "<=", ">="]);
const ONE_CHAR_OPS = new Set(["<", ">", "(", ")", "[", "]", ",", ".", "|", "-", "~"]);
const ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"' };

const isDigit = (c: string) => c >= "0" && c <= "9";
const isNameStart = (c: string) => (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c === "_";
const isNameChar = (c: string) => isNameStart(c) || isDigit(c);

/**
 * Tokenise one expression starting right after `{{`, up to and including the closing `}}`.
 * Scanning token by token (not searching for `}}`) lets string literals contain `}}`.
 */
export function lexExpression(src: string, start: number): { tokens: Token[]; end: number } {
  const tokens: Token[] = [];
  let i = start;
  while (i < src.length) {
    if (tokens.length > MAX_TOKENS) throw new TemplateError(`template syntax error: expression longer than ${MAX_TOKENS} tokens`);
    const c = src[i]!;
    if (c === " " || c === "\t" || c === "\n" || c === "\r") {
      i++;
      continue;
    }
    if (c === "}" && src[i + 1] === "}") {
      tokens.push({ t: "close", v: "}}", pos: i });
      return { tokens, end: i + 2 };
    }
    if (isDigit(c)) {
      let j = i;
      while (j < src.length && isDigit(src[j]!)) j++;
      if (src[j] === "." && isDigit(src[j + 1] ?? "")) {
        j++;
        while (j < src.length && isDigit(src[j]!)) j++;
      }
      tokens.push({ t: "num", v: Number(src.slice(i, j)), pos: i });
      i = j;
      continue;
    }
    if (isNameStart(c)) {
      let j = i;
      while (j < src.length && isNameChar(src[j]!)) j++;
      tokens.push({ t: "name", v: src.slice(i, j), pos: i });
      i = j;
      continue;
    }
    if (c === "'" || c === '"') {
      const { value, end } = readString(src, i);
      tokens.push({ t: "str", v: value, pos: i });
      i = end;
      continue;
    }
    const two = src.slice(i, i + 2);
    if (TWO_CHAR_OPS.has(two)) {
      tokens.push({ t: "op", v: two, pos: i });
      i += 2;
      continue;
    }
    if (ONE_CHAR_OPS.has(c)) {
      tokens.push({ t: "op", v: c, pos: i });
      i++;
      continue;
    }
    throw new TemplateError(`template syntax error: unexpected character '${c}' at position ${i + 1}`);
  }
  throw new TemplateError(`template syntax error: '{{' at position ${start - 1} is never closed with '}}'`);
}

function readString(src: string, start: number): { value: string; end: number } {
  const quote = src[start]!;
  const out: string[] = [];
  let i = start + 1;
  while (i < src.length) {
    const c = src[i]!;
    if (c === quote) return { value: out.join(""), end: i + 1 };
    if (c === "\\" && i + 1 < src.length) {
      const e = src[i + 1]!;
      out.push(ESCAPES[e] ?? e);
      i += 2;
      continue;
    }
    out.push(c);
    i++;
  }
  throw new TemplateError(`template syntax error: string starting at position ${start + 1} is never closed`);
}
