import type { RouteResult } from "../types";
import type { RequestContext, RouterParts } from "./router-parts";

/**
 * lab_deployment composes every product, so its words are every product's: scoring would pull
 * "a private CA for the lab" to it. It is chosen here instead, only when a lab is the thing to
 * create or delete ("stand up a lab for …", "tear down the whole lab"), never when "lab" only
 * qualifies something else ("the lab network", "a CA for the lab").
 */
export const LAB_DAG = "lab_deployment";

const LAB_WORDS = new Set(["lab", "labs", "homelab"]);
/** Words between a verb or preposition and "lab" that keep it the object: "a whole new lab". */
const LEAD_INS = new Set(["a", "an", "the", "my", "our", "this", "that", "whole", "full", "entire", "complete", "new", "fresh", "small", "another", "test", "dev", "demo", "own"]);
const PREPOSITIONS = new Set(["for", "in", "on", "of", "to", "into", "from", "at", "inside", "within", "across", "throughout", "about", "behind", "under", "per"]);
/** "lab <noun>": the lab qualifies the noun, which is the object. */
const QUALIFIED = new Set([
  "network",
  "networks",
  "net",
  "subnet",
  "subnets",
  "domain",
  "router",
  "vm",
  "vms",
  "machine",
  "machines",
  "server",
  "servers",
  "dns",
  "ca",
  "registry",
  "user",
  "users",
  "gateway",
  "host",
  "hosts",
  "cluster",
  "realm",
  "zone",
  "certificate",
  "certificates",
  "identity",
  "idm",
  "box",
  "node",
  "nodes",
  "vlan",
]);

/** True when a lab itself is what the request acts on. */
export function asksForLab(words: readonly string[]): boolean {
  if (words.includes(LAB_DAG)) return true;
  return words.some((w, i) => {
    if (!LAB_WORDS.has(w)) return false;
    if (QUALIFIED.has(words[i + 1] ?? "")) return false;
    let j = i - 1;
    while (j >= 0 && LEAD_INS.has(words[j]!)) j--;
    // "for the lab" qualifies; "a cluster named lab" names something else.
    return !PREPOSITIONS.has(words[j] ?? "") && words[j] !== "called" && words[j] !== "named";
  });
}

const PRODUCT_WORDS: Record<"identity" | "ca" | "registry", readonly string[]> = {
  identity: ["dns", "identity", "idm", "freeipa", "ipa", "kerberos", "ldap", "samba", "directory", "sso", "nameserver"],
  ca: ["ca", "pki", "certificate", "certificates", "cert", "certs", "acme"],
  registry: ["registry", "harbor", "quay", "oci"],
};
const NEGATORS = new Set(["without", "no", "except", "minus", "excluding", "skip", "but"]);

/**
 * The products the request names (the router always): none named gives none (the DAG's default,
 * all four, applies); "without a registry" leaves the registry out of all four.
 */
export function labProducts(words: readonly string[]): string[] | undefined {
  const named = new Set<string>();
  const excluded = new Set<string>();
  words.forEach((w, i) => {
    for (const [product, terms] of Object.entries(PRODUCT_WORDS)) {
      if (!terms.includes(w)) continue;
      const before = words.slice(Math.max(0, i - 3), i);
      (before.some((b) => NEGATORS.has(b)) ? excluded : named).add(product);
    }
  });
  const all = ["identity", "ca", "registry"];
  if (named.size === 0 && excluded.size === 0) return undefined;
  const chosen = named.size > 0 ? all.filter((p) => named.has(p) && !excluded.has(p)) : all.filter((p) => !excluded.has(p));
  return ["router", ...chosen];
}

const NOT_NAMES = new Set([
  ...PREPOSITIONS,
  ...LEAD_INS,
  ",",
  "and",
  "with",
  "without",
  "using",
  "please",
  "now",
  "too",
  "also",
  "environment",
  "stack",
  "setup",
  "called",
  "named",
  "is",
  "was",
  "are",
  "were",
  "has",
  "will",
  "should",
  "can",
  "done",
]);
const LAB_NAME = /^[a-z][a-z0-9-]{0,10}$/;

/** The lab's name as typed: "a lab called dev1", "lab named dev1", "the lab dev1"; undefined when none. */
export function labNameOf(words: readonly string[]): string | undefined {
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if ((w === "called" || w === "named") && words[i + 1] && !NOT_NAMES.has(words[i + 1]!)) return words[i + 1];
    if (LAB_WORDS.has(w) && words[i + 1] && !NOT_NAMES.has(words[i + 1]!) && !QUALIFIED.has(words[i + 1]!) && !words[i + 1]!.includes(".")) return words[i + 1];
  }
  return undefined;
}

const MEMBER_WORDS = new Set(["member", "members", "vms", "machines"]);

/** A delete that names the lab's members ("delete the lab dev1 and its members", "with all its vms"), not "without". */
export function withMembers(words: readonly string[]): boolean {
  return words.some(
    (w, i) =>
      MEMBER_WORDS.has(w) &&
      words[i - 1] !== "lab" &&
      !words.slice(Math.max(0, i - 4), i).some((b) => NEGATORS.has(b)) &&
      words.slice(0, i).some((b) => b === "its" || b === "their" || b === "with" || b === "and"),
  );
}

/** The lab route, or null when the request is not about a lab as a whole. */
export function routeLab(parts: RouterParts, ctx: RequestContext): RouteResult | null {
  const entry = parts.byId.get(LAB_DAG);
  if (!entry || !(ctx.verbs.create || ctx.verbs.delete)) return null;
  const words = ctx.frame.words.filter((_, i) => !ctx.frame.excluded.has(i));
  if (!asksForLab(words)) return null;
  const route = parts.finish(entry, ctx.parsed, ctx, 1, [{ dag_id: LAB_DAG, score: 1 }], "a whole lab is what the request creates or deletes");
  if (route.status === "rejected") return route;
  const products = labProducts(ctx.frame.words);
  const name = labNameOf(words);
  const members = ctx.verbs.delete && withMembers(ctx.frame.words) ? { with_members: true } : {};
  const params = { ...route.params, ...(products ? { products } : {}), ...(name && LAB_NAME.test(name) ? { lab_name: name } : {}), ...members };
  if (name === undefined || LAB_NAME.test(name)) return { ...route, params };
  // A name given that the lab cannot take is asked again, never shortened or dropped.
  const input = {
    field: "lab_name",
    rule: "pattern",
    given: name,
    question: `"${name}" cannot name a lab: a letter, then up to 10 lower-case letters, digits or hyphens (its VMs are <lab_name>-router, -idm, -ca, -registry). What should the lab be called?`,
  };
  return { ...route, status: "needs_input", question: input.question, input: [input, ...(route.input ?? [])], params };
}
