import type { Action } from "./action-lexicon";
import { DOMAIN_KNOWLEDGE, STRONG } from "./domain-knowledge";
import type { IntentFrame } from "./intent-frame";
import { containsPhrase, type IntentVerbs } from "./keyword-scorer";
import { analyse } from "./analyse";
import { foreignKindOf, foreignProduct, innerObject } from "./unsupported-objects";

/** Operations no catalogue DAG performs unless it names them itself. */
const OTHER_OPERATIONS: readonly Action[] = ["stop", "start", "restart", "change"];

/** The request's verbs, with the frame (negation, retraction, languages) deciding create and delete. */
export function verbsFromFrame(frame: IntentFrame, lexical: IntentVerbs): IntentVerbs {
  const a = frame.action;
  const other = frame.mentions.find((m) => m.action === a && OTHER_OPERATIONS.includes(a));
  // No action word the lexicon knows (a typo, a rare verb): the typo-repaired lexical verbs decide, unless something was negated.
  if (a === null) {
    const free = frame.mentions.length === 0;
    return { create: free && !frame.question && lexical.create, delete: free && lexical.delete, check: lexical.check || frame.stateQuestion, unsupported: null };
  }
  return {
    create: a === "create" && !frame.stateQuestion,
    delete: a === "delete" && !frame.stateQuestion,
    check: a === "check" || a === "list" || frame.stateQuestion || lexical.check,
    unsupported: other ? other.phrase : null,
  };
}

/** The catalogue's own products by name (not the nouns of their field, such as router or registry). */
const BRAND_TERMS = ["freeipa", "ipa", "idm", "step ca", "stepca", "smallstep", "vyos", "harbor", "quay", "openshift", "ocp", "okd"].map((t) => analyse(t));
const STRONG_TERMS = DOMAIN_KNOWLEDGE.flatMap((k) => k.groups.filter((g) => g.weight >= STRONG).flatMap((g) => g.terms.map((t) => analyse(t))));

/** Why the request cannot be routed whatever its nouns say, or null; `offered` says which inner objects a workflow adds (users, groups). */
export function frameRefusal(frame: IntentFrame, terms: readonly string[], offered: (inner: string) => boolean = () => false): string | null {
  if (frame.withdrawn) return "The request was taken back (negated or retracted), so there is nothing to run.";
  const inner = innerObject(frame.words);
  if (inner && (frame.action === "create" || frame.action === null) && !offered(inner))
    return `Adding a ${inner} inside an existing service is not an operation the catalogue has; its workflows deploy or remove whole services and VMs.`;
  const foreign = foreignProduct(
    frame.words,
    STRONG_TERMS.some((p) => containsPhrase(terms, p)),
  );
  if (foreign) return `The catalogue has no workflow for ${foreign}.`;
  const kind = foreignKindOf(frame.words);
  if (kind && !BRAND_TERMS.some((p) => containsPhrase(terms, p))) return `The catalogue has no workflow for ${kind}.`;
  return null;
}

const SKIP = new Set(["the", "vm", "virtual", "machine", "box", "instance", "server", "la", "le", "el", "die", "den", "das", "my", "our", "of", "called", "named"]);

/** The name-shaped word (digit or hyphen) right after a live delete verb ("decommission web-07"), or null. */
export function bareObjectName(frame: IntentFrame): string | null {
  const m = frame.mentions.find((x) => x.action === "delete" && !x.negated && !x.retracted);
  if (!m) return null;
  let i = m.end;
  while (i < frame.words.length && SKIP.has(frame.words[i]!)) i++;
  const w = frame.words[i];
  return w && /^[a-z][a-z0-9-]{0,62}$/.test(w) && /[\d-]/.test(w) ? w : null;
}
