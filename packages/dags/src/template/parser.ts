import type { CompareOp, Node } from "./ast";
import { TemplateError } from "./errors";
import { FILTERS } from "./filters";
import type { Token } from "./lexer";

/** Nesting limit for parentheses, lists, `not` and subscripts: deep input must fail, not overflow the stack. */
export const MAX_DEPTH = 64;

const KEYWORD_LITERALS: Record<string, null | boolean> = {
  true: true,
  false: false,
  True: true,
  False: false,
  null: null,
  none: null,
  None: null,
};
const RESERVED = new Set(["and", "or", "not", "in", "is", "if", "else"]);
const COMPARE_OPS = new Set(["==", "!=", "<", "<=", ">", ">="]);

/** Parse the tokens of one `{{ ... }}` (ending with the close token) into an expression tree. */
export function parseExpression(tokens: Token[]): Node {
  let i = 0;
  let depth = 0;
  const peek = (): Token => tokens[i]!;
  const fail = (tok: Token, what?: string): never => {
    const shown = tok.t === "close" ? "'}}'" : tok.t === "str" ? "a string" : `'${String(tok.v)}'`;
    throw new TemplateError(`template syntax error: ${what ?? `unexpected ${shown}`} at position ${tok.pos + 1}`);
  };
  const isOp = (v: string) => peek().t === "op" && peek().v === v;
  const isName = (v: string) => peek().t === "name" && peek().v === v;
  const expectOp = (v: string) => (isOp(v) ? i++ : fail(peek(), `expected '${v}' but found ${describe(peek())}`));
  const nest = <T>(f: () => T): T => {
    if (++depth > MAX_DEPTH) throw new TemplateError(`template syntax error: expression nested deeper than ${MAX_DEPTH} levels`);
    try {
      return f();
    } finally {
      depth--;
    }
  };

  const parseOr = (): Node => {
    let left = parseAnd();
    while (isName("or")) {
      i++;
      left = { kind: "logic", op: "or", left, right: parseAnd() };
    }
    return left;
  };
  const parseAnd = (): Node => {
    let left = parseNot();
    while (isName("and")) {
      i++;
      left = { kind: "logic", op: "and", left, right: parseNot() };
    }
    return left;
  };
  const parseNot = (): Node => {
    if (isName("not")) {
      i++;
      return nest(() => ({ kind: "not", operand: parseNot() }));
    }
    return parseCompare();
  };
  const parseCompare = (): Node => {
    const left = parseConcat();
    let op: CompareOp | undefined;
    const tok = peek();
    if (tok.t === "op" && COMPARE_OPS.has(tok.v)) op = tok.v as CompareOp;
    else if (isName("in")) op = "in";
    else if (isName("not") && tokens[i + 1]?.t === "name" && tokens[i + 1]!.v === "in") {
      op = "not in";
      i++;
    }
    if (!op) return left;
    i++;
    const right = parseConcat();
    const next = peek();
    if ((next.t === "op" && COMPARE_OPS.has(next.v)) || isName("in")) fail(next, "chained comparisons are not supported; use 'and'");
    return { kind: "compare", op, left, right };
  };
  // Jinja's `~` binds looser than filters and tighter than comparisons: `a ~ b | upper == c`.
  const parseConcat = (): Node => {
    const first = parseFiltered();
    if (!isOp("~")) return first;
    const parts = [first];
    while (isOp("~")) {
      i++;
      parts.push(parseFiltered());
    }
    return { kind: "concat", parts };
  };
  const parseFiltered = (): Node => {
    let node = parseUnary();
    while (isOp("|")) {
      i++;
      const nameTok = peek();
      if (nameTok.t !== "name") fail(nameTok, `expected a filter name after '|' but found ${describe(nameTok)}`);
      i++;
      const name = String(nameTok.v);
      const spec = Object.prototype.hasOwnProperty.call(FILTERS, name) ? FILTERS[name] : undefined;
      if (!spec) throw new TemplateError(`template syntax error: unknown filter '${name}' (known: ${Object.keys(FILTERS).sort().join(", ")})`);
      const args: Node[] = [];
      if (isOp("(")) {
        i++;
        nest(() => {
          while (!isOp(")")) {
            args.push(parseOr());
            if (!isOp(")")) expectOp(",");
          }
        });
        i++;
      }
      if (args.length < spec.minArgs || args.length > spec.maxArgs) {
        const want = spec.minArgs === spec.maxArgs ? `${spec.minArgs}` : `${spec.minArgs} to ${spec.maxArgs}`;
        throw new TemplateError(`template syntax error: filter '${name}' takes ${want} argument(s), got ${args.length}`);
      }
      node = { kind: "filter", name, input: node, args };
    }
    return node;
  };
  const parseUnary = (): Node => {
    if (isOp("-")) {
      i++;
      return nest(() => ({ kind: "neg", operand: parseUnary() }));
    }
    return parsePostfix();
  };
  const parsePostfix = (): Node => {
    let node = parsePrimary();
    for (;;) {
      if (isOp(".")) {
        i++;
        const tok = peek();
        if (tok.t !== "name") fail(tok, `expected a name after '.' but found ${describe(tok)}`);
        i++;
        node = { kind: "member", object: node, key: String(tok.v) };
      } else if (isOp("[")) {
        i++;
        const index = nest(parseOr);
        expectOp("]");
        node =
          index.kind === "literal" && (typeof index.value === "string" || Number.isInteger(index.value))
            ? { kind: "member", object: node, key: index.value as string | number }
            : index.kind === "neg" && index.operand.kind === "literal" && Number.isInteger(index.operand.value)
              ? { kind: "member", object: node, key: -(index.operand.value as number) }
              : { kind: "index", object: node, index };
      } else if (isOp("(")) {
        fail(peek(), "function calls are not supported");
      } else return node;
    }
  };
  const parsePrimary = (): Node => {
    const tok = peek();
    if (tok.t === "num" || tok.t === "str") return (i++, { kind: "literal", value: tok.v });
    if (tok.t === "name") {
      if (Object.prototype.hasOwnProperty.call(KEYWORD_LITERALS, tok.v)) return (i++, { kind: "literal", value: KEYWORD_LITERALS[tok.v] as null | boolean });
      if (RESERVED.has(tok.v)) fail(tok);
      i++;
      return { kind: "var", name: tok.v };
    }
    if (isOp("(")) {
      i++;
      const inner = nest(parseOr);
      expectOp(")");
      return inner;
    }
    if (isOp("[")) {
      i++;
      const items: Node[] = [];
      nest(() => {
        while (!isOp("]")) {
          items.push(parseOr());
          if (!isOp("]")) expectOp(",");
        }
      });
      i++;
      return { kind: "list", items };
    }
    return fail(tok, tok.t === "close" ? "empty expression" : undefined);
  };

  const node = parseOr();
  if (peek().t !== "close") fail(peek());
  return node;
}

function describe(tok: Token): string {
  return tok.t === "close" ? "'}}'" : tok.t === "str" ? "a string" : `'${String(tok.v)}'`;
}
