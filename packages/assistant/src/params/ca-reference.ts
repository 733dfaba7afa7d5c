import type { InputRequest } from "../types";
import { brokenRule, inputRequest, valueHasShellSyntax } from "./given-value-rules";

// "a registry with TLS from our CA ca01": the request uses an existing CA (a value, ca_vm), it does
// not ask for one. The phrase is read for the name and left out when the request is scored.
const CA_REFERENCE =
  /(?:^|\s)(?:from|by|via|using|with|through)\s+(?:(?:our|the|my|a|an|your|its|their|that)\s+)?(?:(?:lab|internal|private|own|existing|company)\s+)?(?:ca|certificate\s+authority)(?:\s+(?:vm\s+)?(?:called\s+|named\s+)?([^\s,;!?]+))?/i;

/** Words after "the CA" that are not its name ("from the CA for web01"). */
const NOT_A_NAME = new Set(["for", "and", "to", "on", "in", "at", "of", "please", "thanks", "so", "as", "with", "vm", "server", "that", "which", "then"]);

export interface CaReference {
  /** The CA's name as typed, when the request gives one and it is acceptable. */
  value?: string;
  /** The name given breaks a rule: asked again, never coerced. */
  issue?: InputRequest;
  /** The name carries shell syntax: the request is rejected. */
  shell?: boolean;
}

/** The CA a request names as the issuer it uses ("from our CA ca01"), if any. */
export function readCaReference(raw: string): CaReference | undefined {
  const m = CA_REFERENCE.exec(raw);
  if (!m) return undefined;
  const given = m[1]?.replace(/[.]+$/, "");
  if (!given || NOT_A_NAME.has(given.toLowerCase())) return {};
  if (valueHasShellSyntax(given)) return { shell: true };
  const rule = brokenRule("ca_vm", given);
  return rule ? { issue: inputRequest("ca_vm", rule, given) } : { value: given };
}

/** The text without its CA reference: what is scored to find the workflow asked for. */
export function withoutCaReference(text: string): string {
  return text.replace(CA_REFERENCE, " ").replace(/\s+/g, " ").trim();
}
