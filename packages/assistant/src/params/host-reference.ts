import type { InputRequest } from "../types";
import { inputRequest, valueHasShellSyntax } from "./given-value-rules";

// "create a vm called web02 on host lab2", "deploy an identity server ... on host b": the
// hypervisor host of the inventory to run the workflow on (the `host` param of vm_deployment, the
// product workflows, the lab and the health check). Read from the raw request so the name is
// judged as typed, never folded.
const HOST_REFERENCE = /(?:^|\s)(?:on|to|onto|at)\s+(?:the\s+)?(?:hypervisor\s+host|hypervisor|kvm\s+host|host)\s+(?:called\s+|named\s+)?([^\s,;!?]+)/i;

// "create a vm called c1 on hz-test": a hyphenated name as the request's last words, without the
// word "host" (an inventory's names, cloud hosts' especially, read so: aws-eu, hz-fsn).
const TRAILING_HOST = /(?:^|\s)on\s+([a-z][a-z0-9]*-[a-z0-9-]*[a-z0-9])\s*[.!]?\s*$/;

/** A host of the inventory: one lower-case DNS label (HOST_NAME of @svc/hosts). */
const HOST_NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const SHAPE = "a host of the inventory (svc-hosts list): lower-case letters, digits and '-', 1 to 63, not starting or ending with '-'";

/** Words after "on host" that are not its name ("on the host with the most room"). */
const NOT_A_NAME = new Set(["with", "that", "which", "where", "and", "for", "please", "thanks", "then", "of", "the", "a", "an"]);

export interface HostReference {
  /** The host as typed, when it follows the rule. */
  value?: string;
  /** The host given breaks the rule: asked again, never folded or dropped. */
  issue?: InputRequest;
  /** The host carries shell syntax: the request is rejected. */
  shell?: boolean;
}

/** The hypervisor host a request puts its VMs on ("on host lab2"), if it names one. */
export function readHostReference(raw: string): HostReference | undefined {
  const m = HOST_REFERENCE.exec(raw) ?? TRAILING_HOST.exec(raw);
  if (!m) return undefined;
  const given = m[1]!.replace(/[.]+$/, "");
  if (NOT_A_NAME.has(given.toLowerCase())) return undefined;
  if (valueHasShellSyntax(given)) return { shell: true };
  if (HOST_NAME.test(given)) return { value: given };
  const rule =
    given.length > 63
      ? `host must be at most 63 characters (got ${given.length})`
      : HOST_NAME.test(given.toLowerCase())
        ? `host must be lower-case ('${given}' is not converted): ${SHAPE}`
        : `host must be ${SHAPE} ('${given}' was given)`;
  return { issue: { ...inputRequest("host", rule, given), question: "Which host of the inventory should it go on? (svc-hosts list; lower-case letters, digits and '-')" } };
}

/** The text without its host reference: what is scored to find the workflow asked for. */
export function withoutHostReference(text: string): string {
  return text.replace(HOST_REFERENCE, " ").replace(TRAILING_HOST, " ").replace(/\s+/g, " ").trim();
}
