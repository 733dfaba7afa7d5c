import type { InputRequest } from "../types";

/** How a user-given value of one field is judged. */
interface FieldRule {
  /** What the field names, for questions ("the VM"). */
  noun: string;
  maxLength: number;
  /** The shape a valid value has, in words. */
  shape: string;
  pattern: RegExp;
}

const NAME_SHAPE = "lowercase letters, digits and '-', starting with a letter";

/** Fields whose values are names the user gives; each is judged as typed, never coerced. */
export const GIVEN_FIELD_RULES: Readonly<Record<string, FieldRule>> = {
  vm_name: { noun: "the VM", maxLength: 63, shape: NAME_SHAPE, pattern: /^[a-z][a-z0-9-]*$/ },
  cluster_name: { noun: "the cluster", maxLength: 31, shape: NAME_SHAPE, pattern: /^[a-z][a-z0-9-]*$/ },
  ca_vm: { noun: "the CA", maxLength: 63, shape: NAME_SHAPE, pattern: /^[a-z][a-z0-9-]*$/ },
  domain: {
    noun: "the DNS domain",
    maxLength: 253,
    shape: "a DNS domain such as lab.example.com",
    pattern: /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/,
  },
  image: {
    noun: "the image",
    maxLength: 63,
    shape: "an image name from the host's images directory (letters, digits, '.', '_' or '-'), not a path or URL",
    pattern: /^[a-z0-9][a-z0-9._-]*$/,
  },
};

const QUESTIONS: Record<string, string> = {
  vm_name: "What should the VM be called?",
  cluster_name: "What should the cluster be called?",
  ca_vm: "Which CA (a VM made by ca_deployment) should issue the certificate?",
  domain: "Which DNS domain should it use?",
  image: "Which image should the VM be created from?",
};

/** Shell syntax in a value: command separators, substitutions, pipes, redirections. */
const SHELL_IN_VALUE = /[;&|`<>]|\$\(|\$\{/;

/** True when a value carries shell syntax: the request is rejected rather than asked again. */
export function valueHasShellSyntax(value: string): boolean {
  return SHELL_IN_VALUE.test(value);
}

/** The question to ask for a field, with the rule a valid answer follows. */
export function questionFor(field: string, rule?: string): string {
  const r = GIVEN_FIELD_RULES[field];
  const q = QUESTIONS[field] ?? `What value should ${field} have?`;
  if (!r) return rule ? `${q} (${rule})` : q;
  return `${q} (${r.shape}, at most ${r.maxLength} characters)`;
}

/** The rule a given value breaks, in words, or null when it is acceptable as typed. */
export function brokenRule(field: string, value: string): string | null {
  const r = GIVEN_FIELD_RULES[field];
  if (!r) return null;
  if (value.length === 0) return `${field} must not be empty`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(value)) return `${field} must be on one line, without control characters or newlines`;
  if (!/[\p{L}\p{N}]/u.test(value)) return `${field} must contain letters or digits, not only punctuation ('${value}' was given)`;
  // A name is used as typed: full-width or accented letters are refused, never folded into ASCII ones.
  if (/[^\x20-\x7e]/.test(value)) return `${field} must use ASCII letters, digits and '-' only; '${value}' has other characters and is not converted`;
  if (value.startsWith("-")) return `${field} must not start with '-'`;
  if (/[/\\]/.test(value) || value.includes("..")) return `${field} must be a name, not a path or URL (no '/', '\\' or '..')`;
  if (/["'`]/.test(value)) return `${field} must not contain quotes`;
  if (/\s/.test(value)) return `${field} must not contain spaces`;
  if (value.length > r.maxLength) return `${field} must be at most ${r.maxLength} characters (got ${value.length})`;
  if (!r.pattern.test(value.toLowerCase())) return `${field} must be ${r.shape}`;
  return null;
}

/** A request for input about one field: what was given, the rule, and the question. */
export function inputRequest(field: string, rule: string, given?: string): InputRequest {
  return { field, rule, question: questionFor(field, rule), ...(given !== undefined ? { given: given.slice(0, 200) } : {}) };
}
