import type { RouterCatalogEntry } from "../types";
import { analyse } from "./analyse";
import { DOMAIN_KNOWLEDGE } from "./domain-knowledge";
import { findGivenName } from "../params/given-names";
import { hasClauseSignal } from "./intent-frame";
import { containsPhrase } from "./keyword-scorer";
import { PARAM_WORDS } from "./parse-intent";
import { FOREIGN_PRODUCTS } from "./unsupported-objects";

/**
 * Chat around a request ("morning! could you spin up a vm called x? thanks"): the clauses that carry
 * no request are dropped before routing, so that a greeting, thanks or a remark about the weather
 * neither hides the request nor lets a stray word pick another workflow. Only clauses with nothing
 * the router uses are dropped: a clause naming a catalogue thing, a value (a digit), an action or a
 * negation is always kept. The safety gate has already read the whole text.
 */

/**
 * Clause ends: sentence punctuation attached to a word ("thanks!", "web01."), ';' or ':' before a
 * space, a dash between spaces, a comma, a line break. Dots after a space ("called ...") are a value.
 */
const CLAUSE_END = /(?<=[^\s.!?])[.!?]+(?=\s|$)|[;:](?=\s|$)|\s[-–—]+\s|,|\r?\n/gu;

/** Clauses that are courtesy, whatever else they say, unless they name a catalogue thing or a value. */
const CHATTY =
  /^(hi|hey|hello|hiya|heya|howdy|yo|morning|evening|afternoon|good (morning|afternoon|evening|day)|greetings|dear|hallo|hola|bonjour|salut|buenos dias|buenas|guten (morgen|tag|abend)|moin|servus)\b|\b(thanks?|thank you|thx|ty|ta|cheers|much appreciated|appreciate|grateful|obliged|kindly regards|regards|best wishes|have a (good|nice|great)|hope (you|your|this|the|all|it)|sorry|apologies|apologize|apologise|excuse me|lol|haha|btw|fyi|merci|gracias|danke|por favor|bitte|s'il (te|vous) plait)\b|\b(looks?|looked|is|was) (great|awesome|amazing|nice|good)\b/;

/** A first-person account of what happened ("I deleted my notes", "we moved offices"): not a request. */
const NARRATIVE = /^(i|we|they|he|she|my \w+|our \w+|the \w+)( \w+)? (\w+ed|had|was|were|did|broke|went|got|made|took|came|saw|said|forgot|lost|ran|wrote|built|walked)\b/;

/** Words of the health check's questions ("is the registry ok?") that are everyday words in chat ("pizza is fine"). */
const EVERYDAY = new Set(["ok", "okay", "fine", "alright", "working"]);

/** A remark on how something stands ("the lab is done", "the demo was great"): context, when another clause asks for the change. */
const REMARK = /^(the|this|that|our|my|your) [\p{L}-]+( [\p{L}-]+)? (is|was|are|were|'s) (now )?(done|over|finished|fine|great|good|gone|dead|slow|ready|complete|wrapped up)$/u;

interface Clause {
  text: string;
  /** The clause's own end mark, kept with it. */
  end: string;
}

function splitClauses(raw: string): Clause[] {
  const out: Clause[] = [];
  let from = 0;
  for (const m of raw.matchAll(CLAUSE_END)) {
    out.push({ text: raw.slice(from, m.index), end: m[0] });
    from = m.index + m[0].length;
  }
  out.push({ text: raw.slice(from), end: "" });
  return out.filter((c) => c.text.trim() || c.end.trim());
}

const fold = (s: string) =>
  s
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[\u2018\u2019`´]/g, "'")
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .replace(/[^\p{L}\p{N}' .-]+/gu, " ")
    .replace(/\s+/g, " ")
    .trim();

/** A filter bound to one catalogue: its product and field words, and its DAGs' tags, count as signal. */
export function createChatFilter(catalog: readonly RouterCatalogEntry[]): (raw: string) => string {
  const phrases = [
    ...DOMAIN_KNOWLEDGE.flatMap((k) => k.groups.filter((g) => g.weight >= 2).flatMap((g) => g.terms)).filter((t) => !EVERYDAY.has(t)),
    ...catalog.flatMap((e) => [...e.tags, e.dag_id]),
    "cluster",
    "vm",
    "server",
    "node",
    ...PARAM_WORDS.filter((w) => !["please", "single", "full", "three", "compact"].includes(w)),
    ...FOREIGN_PRODUCTS,
  ].map((t) => analyse(t.replace(/_/g, " ")));
  const namesCatalogue = (text: string) => {
    const terms = analyse(text);
    return phrases.some((p) => containsPhrase(terms, p));
  };
  const keep = (c: Clause): boolean => {
    const text = fold(c.text);
    if (!text) return false;
    // A value (a digit, a domain), a catalogue or param word, another product, a given name: part of the request.
    if (/\d|\p{L}\.\p{L}/u.test(text) || namesCatalogue(text) || findGivenName(c.text)) return true;
    if (CHATTY.test(text) || NARRATIVE.test(text)) return false;
    return hasClauseSignal(c.text);
  };
  return (raw) => {
    const clauses = splitClauses(raw);
    if (clauses.length < 2) return raw;
    let kept = clauses.filter(keep);
    // "Tear down the vyos router please, the lab is done.": a remark beside a clause that asks for a change is context.
    if (kept.some((c) => hasClauseSignal(c.text) && namesCatalogue(fold(c.text)))) kept = kept.filter((c) => !REMARK.test(fold(c.text)));
    if (kept.length === 0 || kept.length === clauses.length) return raw;
    return kept
      .map((c) => `${c.text.trim()}${/[?]/.test(c.end) ? "?" : /[,;:]/.test(c.end) ? "," : "."}`)
      .join(" ")
      .replace(/[.,]$/, "");
  };
}
