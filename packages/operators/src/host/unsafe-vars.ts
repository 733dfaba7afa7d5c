import { NonRetryableError } from "@svc/errors";

/** A top-level Ansible variable name. */
const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Extra-vars as the YAML text of an `-e @file`: every string value tagged `!unsafe`, so Ansible
 * never templates it (a value like `{{ lookup('pipe','id') }}` stays that text). `trusted` holds
 * the operator's own settings (paths from configuration); a caller's variable of the same name is
 * refused rather than silently replaced.
 */
export function unsafeExtraVarsYaml(vars: Record<string, unknown>, trusted: Record<string, string> = {}): string {
  const lines: string[] = [];
  for (const [name, value] of Object.entries(vars)) {
    if (!VAR_NAME.test(name)) throw new NonRetryableError(`extra var name ${JSON.stringify(name)} is not a valid Ansible variable name`);
    if (Object.prototype.hasOwnProperty.call(trusted, name)) throw new NonRetryableError(`extra var '${name}' is an operator setting; it comes from configuration only`);
    lines.push(`${JSON.stringify(name)}: ${flow(value)}`);
  }
  // Settings are data too: a path from configuration is never a template.
  for (const [name, value] of Object.entries(trusted)) lines.push(`${JSON.stringify(name)}: ${flow(value)}`);
  // An empty file is no mapping to Ansible: say so explicitly.
  return lines.length ? `${lines.join("\n")}\n` : "{}\n";
}

/**
 * A YAML double-quoted scalar in printable ASCII: JSON's escapes are valid YAML ones, and every
 * other character is escaped too (YAML refuses some printable-in-JSON ones such as DEL or U+FEFF raw).
 */
function quoted(s: string): string {
  let out = "";
  for (const ch of JSON.stringify(s)) {
    const c = ch.codePointAt(0)!;
    if (c >= 0x20 && c < 0x7f) out += ch;
    else if (c <= 0xffff) out += `\\u${c.toString(16).padStart(4, "0")}`;
    else out += `\\U${c.toString(16).padStart(8, "0")}`;
  }
  return out;
}

/** One value in YAML flow style, every string tagged !unsafe. */
function flow(v: unknown): string {
  if (typeof v === "string") return `!unsafe ${quoted(v)}`;
  if (v === null || v === undefined) return "null";
  if (typeof v === "number") return Number.isFinite(v) ? String(v) : "null";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (Array.isArray(v)) return `[${v.map(flow).join(", ")}]`;
  if (typeof v === "object") {
    // Keys are written as tagged scalars too: a key can come from a caller's object param.
    return `{${Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `!unsafe ${quoted(k)}: ${flow(x)}`)
      .join(", ")}}`;
  }
  // What is left is a bigint, symbol or function: its own string form.
  const rest = v as bigint | symbol;
  return `!unsafe ${quoted(String(rest))}`;
}
