import type { RouteResult } from "../types";
import type { RequestContext, RouterParts } from "./router-parts";

/**
 * A VM as a member of a lab (vm_deployment with lab): "create a vm called web01 in the dev1 lab",
 * "join web01 to the dev1 lab", "remove web01 from the lab". Chosen before the lab route, which
 * would otherwise read "… the dev1 lab" as the lab itself to create or delete.
 */
const MEMBER_DAG = "vm_deployment";
const LAB_WORDS = new Set(["lab", "labs"]);
const LEAD_INS = new Set(["a", "an", "the", "my", "our", "this", "that"]);
const MACHINES = new Set(["vm", "vms", "machine", "server", "box", "host", "node", "virtual"]);
const JOIN_VERBS = new Set(["join", "enroll", "enrol", "attach", "add", "put"]);
const LEAVE_VERBS = new Set(["remove", "take", "drop", "unjoin", "detach", "evict", "kick", "disjoin"]);
const INTO = new Set(["to", "into", "in", "on"]);
const NAME = /^[a-z][a-z0-9-]{0,62}$/;
const LAB_NAME = /^[a-z][a-z0-9-]{0,10}$/;
const NOT_NAMES = new Set([...LEAD_INS, ...MACHINES, ...LAB_WORDS, ...INTO, "from", "called", "named", "new", "please", "it"]);

/** Where "lab" stands after a preposition in `preps`: its index and the lab's name ("the dev1 lab", "lab dev1", "the lab"). */
function labAfter(words: readonly string[], preps: ReadonlySet<string>): { at: number; prep: number; name: string | undefined } | null {
  for (let p = 0; p < words.length; p++) {
    if (!preps.has(words[p]!)) continue;
    let i = p + 1;
    while (i < words.length && (LEAD_INS.has(words[i]!) || words[i] === "of")) i++;
    if (LAB_WORDS.has(words[i] ?? "")) {
      const next = words[i + 1];
      return { at: i, prep: p, name: next && !NOT_NAMES.has(next) && !next.includes(".") ? next : undefined };
    }
    if (LAB_WORDS.has(words[i + 1] ?? "") && !NOT_NAMES.has(words[i]!)) return { at: i + 1, prep: p, name: words[i] };
  }
  return null;
}

/** The member's name: after called/named, else the first word after the verb that can name a VM. */
function memberName(words: readonly string[], verbAt: number, before: number): string | undefined {
  const called = words.findIndex((w) => w === "called" || w === "named");
  if (called >= 0 && called < before && words[called + 1]) return words[called + 1];
  for (let i = verbAt + 1; i < before; i++) if (!NOT_NAMES.has(words[i]!)) return words[i];
  return undefined;
}

/** The member route, or null when the request does not put a VM in a lab or take one out. */
export function routeLabMember(parts: RouterParts, ctx: RequestContext): RouteResult | null {
  const entry = parts.byId.get(MEMBER_DAG);
  if (!entry?.params.lab) return null;
  const words = ctx.frame.words.filter((_, i) => !ctx.frame.excluded.has(i));
  const leaveAt = words.findIndex((w) => LEAVE_VERBS.has(w));
  const joinAt = words.findIndex((w) => JOIN_VERBS.has(w));
  const out = leaveAt >= 0 ? labAfter(words, new Set(["from", "out"])) : null;
  const into = labAfter(words, INTO);
  let action: "create" | "join" | "leave";
  let lab: { at: number; prep: number; name: string | undefined };
  let name: string | undefined;
  if (out && leaveAt < out.prep) {
    [action, lab, name] = ["leave", out, memberName(words, leaveAt, out.prep)];
  } else if (into && ctx.verbs.create && words.slice(0, into.prep).some((w) => MACHINES.has(w))) {
    [action, lab, name] = ["create", into, memberName(words, 0, into.prep)];
  } else if (into && joinAt >= 0 && joinAt < into.prep && words[into.prep] !== "in" && words[into.prep] !== "on") {
    [action, lab, name] = ["join", into, memberName(words, joinAt, into.prep)];
  } else return null;
  const route = parts.finish(entry, ctx.parsed, ctx, 1, [{ dag_id: MEMBER_DAG, score: 1 }], `${action} a lab member: the generic VM workflow with lab`);
  if (route.status === "rejected") return route;
  const base = action === "create" ? Object.fromEntries(Object.entries(route.params).filter(([k]) => k !== "lab_name")) : {};
  const params: Record<string, unknown> = {
    ...base,
    action,
    ...(name && NAME.test(name) ? { vm_name: name } : {}),
    ...(lab.name && LAB_NAME.test(lab.name) ? { lab: lab.name } : {}),
  };
  const input = [...(action === "create" ? (route.input ?? []).filter((i) => i.field !== "lab") : [])];
  if (!lab.name || !LAB_NAME.test(lab.name)) {
    input.unshift({
      field: "lab",
      rule: lab.name ? "pattern" : "required",
      ...(lab.name ? { given: lab.name } : {}),
      question: lab.name
        ? `"${lab.name}" cannot name a lab: a letter, then up to 10 lower-case letters, digits or hyphens. Which lab?`
        : `Which lab should ${name ?? "the VM"} ${action === "leave" ? "leave" : "join"}? (the lab_name of a lab_deployment)`,
    });
  }
  if (action !== "create" && !(name && NAME.test(name))) {
    input.unshift({ field: "vm_name", rule: "required", question: `Which VM should ${action === "leave" ? "leave" : "join"} the lab?` });
  }
  if (input.length === 0) return { ...route, status: "ready", params, question: undefined, input: undefined };
  return { ...route, status: "needs_input", question: input[0]!.question, input, params };
}
