import type { InputRequest, RouteResult } from "../types";
import type { RequestContext, RouterParts } from "./router-parts";

/**
 * Users and groups of an identity server (identity_deployment's add_user, remove_user,
 * add_group): "add user alice to the dev1 lab in group developers", "remove user alice from dev1",
 * "create the group qa on idm01". Chosen before scoring, since "remove … from dev1" would otherwise
 * read as a delete of the server or the lab; only when the catalogue's identity workflow offers
 * the action (else the request stays an object inside a service, which is refused).
 */
const IDENTITY_DAG = "identity_deployment";

const USER_WORDS = new Set(["user", "account"]);
/** Words that may stand between the action and its noun: "add a new freeipa user". */
const QUALIFIERS = new Set(["freeipa", "ipa", "idm", "samba", "ad", "domain", "lab", "ldap", "kerberos", "unix", "posix"]);
const GROUP_WORDS = new Set(["group"]);
const PLURAL_GROUPS = new Set(["groups"]);
/** Words between the noun and its name: "a user called alice", "user named alice". */
const NAME_LEAD = new Set(["called", "named", ":"]);
const ARTICLES = new Set(["a", "an", "the", "new", "my", "our"]);
const PLACE = new Set(["to", "from", "in", "into", "on", "at", "of"]);
/** Words after a place preposition that name the server, not a lab: "on the identity server idm01". */
const SERVER_WORDS = new Set(["identity", "idm", "freeipa", "ipa", "samba", "server", "directory", "domain", "ad", "dc", "vm"]);
const NOT_NAMES = new Set([...ARTICLES, ...PLACE, ...USER_WORDS, ...GROUP_WORDS, ...PLURAL_GROUPS, ...NAME_LEAD, ",", "and", "with", "lab", "please", "for", "as"]);
const USERNAME = /^[a-z_][a-z0-9_.-]{0,19}$/;
const GROUP = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;
const LAB = /^[a-z][a-z0-9-]{0,10}$/;
const VM = /^[a-z][a-z0-9-]{0,62}$/;
const FULL_NAME_RULE = /^[A-Za-z]([A-Za-z .-]{0,126}[A-Za-z.])?$/;
const FULL_NAME = /\bfull name (?:"([^"\n]{1,128})"|'([^'\n]{1,128})'|((?:[A-Z][\w'.-]*)(?: [A-Z][\w'.-]*){0,3}))/;

/** The word after i that names the object, skipping "called", "named" and articles; undefined when none. */
function nameAfter(words: readonly string[], i: number): string | undefined {
  let j = i + 1;
  while (j < words.length && (NAME_LEAD.has(words[j]!) || ARTICLES.has(words[j]!))) j++;
  const w = words[j];
  return w && !NOT_NAMES.has(w) ? w : undefined;
}

/** Groups named after "group(s)" or before "group" ("in group developers", "in the developers and qa groups"). */
function groupsOf(words: readonly string[], from: number): string[] {
  const out: string[] = [];
  for (let i = from; i < words.length; i++) {
    const w = words[i]!;
    if (GROUP_WORDS.has(w) || PLURAL_GROUPS.has(w)) {
      for (let j = i + 1; j < words.length && !PLACE.has(words[j]!); j++) {
        const g = words[j]!;
        if (g === "," || g === "and") continue;
        if (NOT_NAMES.has(g) || SERVER_WORDS.has(g)) break;
        out.push(g);
        if (GROUP_WORDS.has(w)) break;
      }
      // "in the developers group": the name before the noun.
      const before = words[i - 1];
      if (out.length === 0 && before && !NOT_NAMES.has(before) && !SERVER_WORDS.has(before)) out.push(before);
    }
  }
  return [...new Set(out)];
}

/** Where: a lab ("to the dev1 lab", "from lab dev1", "from dev1") or a server by name ("on the identity server idm01"). */
function placeOf(words: readonly string[], from: number): { lab?: string; vm_name?: string } {
  for (let i = from; i < words.length; i++) {
    if (!PLACE.has(words[i]!)) continue;
    let j = i + 1;
    while (j < words.length && ARTICLES.has(words[j]!)) j++;
    const w = words[j];
    if (!w || GROUP_WORDS.has(w) || PLURAL_GROUPS.has(w)) continue;
    if (w === "lab") {
      const name = nameAfter(words, j);
      if (name && !NOT_NAMES.has(name)) return { lab: name };
      continue;
    }
    if (SERVER_WORDS.has(w)) {
      let k = j;
      while (k < words.length && SERVER_WORDS.has(words[k]!)) k++;
      const name = words[k];
      if (name && !NOT_NAMES.has(name) && !PLACE.has(name)) return { vm_name: name };
      continue;
    }
    if (NOT_NAMES.has(w)) continue;
    if (words[j + 1] === "lab") return { lab: w };
    // A bare name: the lab of that name ("from dev1"); a server's own name ends in -idm or follows "server".
    return w.endsWith("-idm") ? { vm_name: w } : { lab: w };
  }
  return {};
}

/** The word as the request typed it (case kept), for names that must not be changed. */
function typed(request: string, word: string): string {
  const esc = word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(?<![\\w.-])${esc}(?![\\w-])`, "i").exec(request)?.[0] ?? word;
}

/** True when the catalogue's identity workflow offers the action. */
function offers(parts: RouterParts, action: string): boolean {
  const spec = parts.byId.get(IDENTITY_DAG)?.params.action as { enum?: unknown[] } | undefined;
  return !!spec?.enum?.includes(action);
}

/** True when an object inside a service ("a user in IdM") is one the identity workflow adds. */
export function offersInner(parts: RouterParts, inner: string): boolean {
  if (USER_WORDS.has(inner)) return offers(parts, "add_user");
  return GROUP_WORDS.has(inner) && offers(parts, "add_group");
}

/** The users-and-groups route, or null when the request is not about one user or group. */
export function routeUsers(parts: RouterParts, ctx: RequestContext): RouteResult | null {
  const { frame, verbs } = ctx;
  if (!(verbs.create || verbs.delete) || frame.withdrawn) return null;
  const { words } = frame;
  // The noun must be the action's object: "add [a new freeipa] user …", never "… for user testing".
  const m = frame.mentions.find((x) => x.action === frame.action && !x.negated && !x.retracted);
  if (!m) return null;
  let at = m.end;
  while (at < words.length && (ARTICLES.has(words[at]!) || QUALIFIERS.has(words[at]!))) at++;
  const noun = words[at];
  const isUser = !!noun && USER_WORDS.has(noun);
  if (!isUser && !(noun && GROUP_WORDS.has(noun))) return null;
  const action = isUser ? (verbs.delete ? "remove_user" : "add_user") : verbs.delete ? "remove_group" : "add_group";
  if (!offers(parts, isUser ? "add_user" : "add_group")) return null;
  const entry = parts.byId.get(IDENTITY_DAG)!;
  const done = (params: Record<string, unknown>, input: InputRequest[], reason: string): RouteResult => ({
    status: input.length ? "needs_input" : "ready",
    ...(input.length ? { question: input[0]!.question, input } : {}),
    dag_id: entry.dag_id,
    confidence: 1,
    params,
    candidates: [{ dag_id: entry.dag_id, score: 1 }],
    reason,
    mode: "offline",
    warnings: [],
  });
  if (action === "remove_group") {
    return {
      ...done({}, [], ""),
      status: "rejected",
      dag_id: null,
      confidence: 0,
      params: {},
      candidates: [],
      reason: "identity_deployment adds groups but does not remove them; nothing was run.",
      refused: { kind: "out_of_scope", message: "identity_deployment adds groups but does not remove them; nothing was run." },
    };
  }
  const folded = nameAfter(words, at);
  // Names as typed: "Alice_X" is asked again, never lower-cased.
  const name = folded && typed(ctx.request, folded);
  const place = placeOf(words, at + 1);
  const input: InputRequest[] = [];
  const params: Record<string, unknown> = { action };
  const field = isUser ? "username" : "group";
  const rule = isUser ? USERNAME : GROUP;
  if (name && rule.test(name)) params[field] = name;
  else
    input.push({
      field,
      rule: name ? "pattern" : "required",
      ...(name ? { given: name } : {}),
      question: isUser
        ? `${name ? `"${name}" cannot be a user name (a lower-case letter or _, then up to 19 lower-case letters, digits, _ . -). ` : ""}What is the user's login name?`
        : `${name ? `"${name}" cannot name a group. ` : ""}What should the group be called?`,
    });
  if (place.lab !== undefined) {
    if (LAB.test(place.lab)) params.lab = place.lab;
    else
      input.push({
        field: "lab",
        rule: "pattern",
        given: place.lab,
        question: `"${place.lab}" cannot name a lab: a letter, then up to 10 lower-case letters, digits or hyphens. Which lab?`,
      });
  }
  if (place.vm_name !== undefined) {
    if (VM.test(place.vm_name)) params.vm_name = place.vm_name;
    else input.push({ field: "vm_name", rule: "pattern", given: place.vm_name, question: `"${place.vm_name}" cannot name the identity server's VM. Which server?` });
  }
  if (action === "add_user") {
    const groups = groupsOf(words, at + 1)
      .filter((g) => g !== folded)
      .map((g) => typed(ctx.request, g));
    const bad = groups.find((g) => !GROUP.test(g));
    if (bad) input.push({ field: "groups", rule: "pattern", given: bad, question: `"${bad}" cannot name a group. Which groups should the user be in?` });
    else if (groups.length) params.groups = groups;
    const full = FULL_NAME.exec(ctx.request);
    const fullName = full && (full[1] ?? full[2] ?? full[3]);
    if (fullName && FULL_NAME_RULE.test(fullName)) params.full_name = fullName;
    else if (fullName)
      input.push({
        field: "full_name",
        rule: "pattern",
        given: fullName,
        question: `"${fullName}" cannot be a full name here (letters, spaces, dots, hyphens). What is the user's full name?`,
      });
  }
  const what = isUser ? `user ${name ?? "?"}` : `group ${name ?? "?"}`;
  return done(params, input, `${action} of ${what} on the identity server`);
}
