import { stem } from "./normalize";
import {
  ACTION_LEXICON,
  CLAUSE_BREAKS,
  CORRECTIONS,
  FAILURE_WORDS,
  INTERROGATIVES,
  NEGATORS,
  POLITE_PREFIXES,
  RETRACTIONS,
  SELF_WORDS,
  STATE_WORDS,
  WITHDRAWALS,
  type Action,
} from "./action-lexicon";
import { OBJECT_END_WORDS, OBJECT_FILLER_WORDS, POSSESSIVE_WORDS, SPEAKER_WORDS } from "./clause-words";

/** One action word found in the request. */
export interface ActionMention {
  action: Action;
  phrase: string;
  at: number;
  /** Index after the action's last word. */
  end: number;
  /** Inside a negation's scope ("don't delete"). */
  negated: boolean;
  /** Taken back by a later retraction ("delete x, actually no"). */
  retracted: boolean;
}

/** What the request asks for, beyond its nouns: the action, negation, retraction and question. */
export interface IntentFrame {
  /** Accent-folded words with clause punctuation kept as "," tokens. */
  words: string[];
  /** The action that counts: the first neither negated nor retracted; null when none. */
  action: Action | null;
  mentions: ActionMention[];
  /** Actions were asked for and all were negated or taken back. */
  withdrawn: boolean;
  question: boolean;
  /** The request opens with an interrogative (not a polite order): a real question. */
  asks: boolean;
  /** A question about the state of things ("which vms are running?", "did the install finish?"). */
  stateQuestion: boolean;
  /** Indices of words whose values must not be used (negated or in a failed attempt's clause). */
  excluded: Set<number>;
}

type Phrase = { words: string[]; text: string };
const phrase = (text: string): Phrase => ({
  words: fold(text)
    .split(" ")
    .map((w) => (w === "*" ? w : wordKey(w))),
  text,
});

const bare = (w: string) => w.replace(/^(l|d|n|j|qu)'/, "").replace(/'s$/, "");
const KEYS = new Map<string, string>();
/**
 * A word's matching key: elision and possessive dropped ("l'ip", "what's"), English inflection
 * folded ("decommissioned", "creating" → the verb's root). Phrases and words compare by key.
 */
function wordKey(w: string): string {
  const hit = KEYS.get(w);
  if (hit !== undefined) return hit;
  const b = bare(w);
  // "does" keeps its own key: folded it would read as "do", and "do me a favour" is an order where "does it work" is not.
  const k =
    b === "does"
      ? b
      : /^[a-z]{3,}$/.test(b)
        ? stem(b)
            .replace(/(ing|ed|es|s)$/, "")
            .replace(/e$/, "")
            .replace(/([b-df-hj-np-tv-z])\1$/, "$1") || b
        : b;
  if (KEYS.size > 20_000) KEYS.clear();
  KEYS.set(w, k);
  return k;
}

/** Lower case without accents ("lösche" → losche, "crée" → cree); typographic apostrophes folded. */
export function fold(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[\u2018\u2019\u02bc`´]/g, "'")
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .replace(/ß/g, "ss")
    .replace(/œ/g, "oe")
    .replace(/æ/g, "ae");
}

/** Words, with each clause-ending mark as a "," token ("—", ";", ".", " - "). */
export function frameWords(raw: string): string[] {
  return fold(raw)
    .replace(/[¿¡]/g, " ")
    .replace(/\s[-–—]+\s|[–—]|[;:!?()]|[.,](?=\s|$)/g, " , ")
    .split(/\s+/)
    .filter(Boolean);
}

const byLength = (a: Phrase, b: Phrase) => b.words.length - a.words.length;
const ACTIONS: { action: Action; p: Phrase }[] = (Object.entries(ACTION_LEXICON) as [Action, string[]][])
  .flatMap(([action, list]) => list.map((t) => ({ action, p: phrase(t) })))
  .sort((a, b) => byLength(a.p, b.p));
const NEG = NEGATORS.map(phrase).sort(byLength);
const BREAKS = CLAUSE_BREAKS.map(phrase).sort(byLength);
const RETRACT = RETRACTIONS.map((t) => phrase(t.replace(",", ""))).sort(byLength);
const WITHDRAW = WITHDRAWALS.map(phrase).sort(byLength);
const SELF = SELF_WORDS.map(phrase).sort(byLength);
const POSSESSIVES = new Set(POSSESSIVE_WORDS);
const ARTICLES = new Set(["the", "a", "this", "that", "to-do", "todo", "shopping", "la", "le", "die", "der"]);
const LIST = wordKey("list");
const FORGET = wordKey("forget");
/** Words that end an action's object ("create a vm called web01": the object is "vm"). */
const OBJECT_ENDS = new Set(OBJECT_END_WORDS.map((w) => (w === "," ? w : wordKey(w))));
/** The words of the object after an action that ends at `from` ("deploy freeipa with …" → freeipa). */
function objectOf(keys: readonly string[], from: number): string[] {
  const out: string[] = [];
  for (let k = from; k < keys.length && k < from + 6 && !OBJECT_ENDS.has(keys[k]!); k++) if (!OBJECT_FILLERS.has(keys[k]!)) out.push(keys[k]!);
  return out;
}
/** Words around what a withdrawal names ("forget about my last request for the CA"): not the thing itself. */
const OBJECT_FILLERS = new Set(OBJECT_FILLER_WORDS.map((w) => wordKey(w)));
const LONE_NO = new Set(["no", "nope", "nah", "nein", "non"]);
const SPEAKERS = new Set(SPEAKER_WORDS);
const ASK = INTERROGATIVES.map(phrase).sort(byLength);
const POLITE = POLITE_PREFIXES.map(phrase).sort(byLength);
const STATE = new Set(STATE_WORDS.map(fold));
const FAILURE = FAILURE_WORDS.map(phrase).sort(byLength);
const CORRECT = CORRECTIONS.map(phrase).sort(byLength);
const SUBJECTS = new Set(["i", "you", "we", "they", "anyone", "someone", "any", "all", "my", "our", "these", "those"].map((w) => wordKey(w)));
const DO = wordKey("do");
/** Interrogatives about something that happened: the question is about state. */
const PAST = new Set(["did", "has", "have", "was", "were"].map((w) => wordKey(w)));
const hasDigit = (w: string) => /\d/.test(w);

/** Length of the phrase at i over word keys ("*" matches one to four words; clause marks never match), or 0. */
function matchAt(keys: readonly string[], i: number, p: Phrase, from = 0): number {
  if (from === p.words.length) return 0.5;
  const part = p.words[from]!;
  const w = keys[i];
  if (w === undefined || w === ",") return 0;
  if (part === "*") {
    for (let span = 1; span <= 4 && keys[i + span - 1] !== undefined && keys[i + span - 1] !== ","; span++) {
      const rest = matchAt(keys, i + span, p, from + 1);
      if (rest > 0) return span + Math.floor(rest);
    }
    return 0;
  }
  if (w !== part) return 0;
  const rest = matchAt(keys, i + 1, p, from + 1);
  return rest > 0 ? 1 + Math.floor(rest) : 0;
}

/** A list's phrases by their first word, in the list's order (longest first): a word is tried only against phrases that start with it. */
function byFirstWord<T>(list: readonly T[], first: (x: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const x of list) m.set(first(x), [...(m.get(first(x)) ?? []), x]);
  return m;
}
const INDEXES = new WeakMap<readonly Phrase[], Map<string, Phrase[]>>();

function firstMatch(words: readonly string[], i: number, list: readonly Phrase[]): Phrase | undefined {
  const w = words[i];
  if (w === undefined) return undefined;
  let index = INDEXES.get(list);
  if (!index) INDEXES.set(list, (index = byFirstWord(list, (p) => p.words[0]!)));
  return index.get(w)?.find((p) => matchAt(words, i, p) > 0);
}

const ACTION_INDEX = byFirstWord(ACTIONS, (x) => x.p.words[0]!);
/** The action phrase at i (the longest that matches), or undefined. */
const actionAt = (keys: readonly string[], i: number) => ACTION_INDEX.get(keys[i] ?? "")?.find((x) => matchAt(keys, i, x.p) > 0);

/** The words after a polite prefix ("can you please …"). */
const FILLERS = new Set(
  [
    ...["hey", "hi", "hello", "ok", "okay", "so", "um", "yo", "hola", "hallo", "salut", "bonjour", "folks", "team", "guys", "and", "also", "quick", "question", ","],
    ...[
      "anyway",
      "anyways",
      "now",
      "next",
      "then",
      "well",
      "right",
      "alright",
      "oh",
      "btw",
      "unrelated",
      "kindly",
      "also",
      "ah",
      "hmm",
      "bueno",
      "alors",
      "also",
      "ensuite",
      "luego",
    ],
  ].map((w) => (w === "," ? w : wordKey(w))),
);

function afterPolite(words: readonly string[]): { start: number; polite: boolean } {
  let i = 0;
  while (i < words.length && FILLERS.has(words[i]!)) i++;
  let polite = false;
  for (let guard = 0; guard < 3; guard++) {
    const p = firstMatch(words, i, POLITE);
    if (!p) break;
    i += p.words.length;
    polite = true;
    while (i < words.length && FILLERS.has(words[i]!)) i++;
  }
  return { start: i, polite };
}

/** Reads the request's action, negation scope, retraction and question form. */
export function readFrame(raw: string): IntentFrame {
  const words = frameWords(raw);
  const keys = words.map((w) => (w === "," ? w : wordKey(w)));
  const mentions: ActionMention[] = [];
  const excluded = new Set<number>();
  let negating = false;
  let keeping = false;
  let clauseStart = 0;
  let retractedAt = -1;
  let lastClause: [number, number] = [0, 0];
  let correction = false;
  let withdrawing = false;
  let withdrawnFrom = 0;
  /** Mentions in a clause that was withdrawn or that the speaker does themselves: never carried on. */
  const dropped = new Set<ActionMention>();
  const endClause = (i: number) => {
    // "I'll set it up myself": the speaker does it; the clause asks for nothing.
    const self = words.slice(clauseStart, i).some((x) => SPEAKERS.has(x)) && keys.slice(clauseStart, i).some((_, k) => !!firstMatch(keys, clauseStart + k, SELF));
    for (const m of mentions) if ((withdrawing || self) && m.at >= clauseStart && m.at < i) dropped.add(m);
    if (withdrawing) {
      // What the withdrawal names is not asked for; it takes back what came before when it names
      // nothing (a bare "never mind") or names the same thing ("create vm web01. never mind the vm"),
      // not when it drops a detail ("deploy freeipa, forget the dns forwarder").
      const object = keys.slice(withdrawnFrom, i).filter((k) => !OBJECT_FILLERS.has(k));
      const asked = new Set(mentions.filter((m) => m.at < clauseStart).flatMap((m) => objectOf(keys, m.end)));
      if (object.length === 0 || object.some((k) => asked.has(k))) for (const m of mentions) if (m.at < clauseStart) m.retracted = true;
      for (let k = withdrawnFrom; k < i; k++) excluded.add(k);
    }
    withdrawing = false;
    // A clause reporting a failed attempt: none of its values are the ones to use.
    for (let k = clauseStart; k < i; k++)
      if (FAILURE.some((f) => matchAt(keys, k, f) > 0)) {
        for (let j = clauseStart; j < i; j++) excluded.add(j);
        break;
      }
    negating = false;
    keeping = false;
    if (i > clauseStart) lastClause = [clauseStart, i];
    clauseStart = i + 1;
  };
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w === ",") {
      endClause(i);
      continue;
    }
    // "a harbor... no, an artifactory registry": a lone "no" corrects the clause before it; its values are not the ones to use.
    if (LONE_NO.has(w) && i > 0 && words[i - 1] === "," && (words[i + 1] === "," || words[i + 1] === undefined) && lastClause[1] > lastClause[0]) {
      for (let k = lastClause[0]; k < lastClause[1]; k++) excluded.add(k);
      excluded.add(i);
      continue;
    }
    // "don't forget to create …" asks for it; "do not cancel …" withdraws nothing.
    if (negating && keys[i] === FORGET) {
      negating = false;
      continue;
    }
    const wd = negating ? undefined : firstMatch(keys, i, WITHDRAW);
    if (wd) {
      // The rest of this clause is what is dropped (and, at the clause's end, maybe what came before).
      retractedAt = i;
      withdrawing = true;
      withdrawnFrom = i + wd.words.length;
      i += wd.words.length - 1;
      continue;
    }
    const r = firstMatch(keys, i, RETRACT);
    if (r) {
      for (const m of mentions) m.retracted = true;
      // The values of the clause taken back are not the ones to use ("4.18, no wait, 4.19").
      const [from, to] = i > clauseStart ? [clauseStart, i] : lastClause;
      for (let k = from; k < to; k++) if (hasDigit(words[k]!)) excluded.add(k);
      retractedAt = i;
      endClause(i + r.words.length - 1);
      i += r.words.length - 1;
      continue;
    }
    // "my list", "our build", "the to-do list": after a possessive (or "list" after an article) the word is a noun.
    const a = POSSESSIVES.has(words[i - 1] ?? "") || (keys[i] === LIST && ARTICLES.has(words[i - 1] ?? "")) ? undefined : actionAt(keys, i);
    if (a) {
      const len = matchAt(keys, i, a.p);
      mentions.push({ action: a.action, phrase: a.p.text, at: i, end: i + len, negated: negating, retracted: false });
      if (negating) for (let k = i; k < i + len; k++) excluded.add(k);
      // "keep the CA": what is kept is not what is asked for.
      if (a.action === "keep" && !negating) keeping = true;
      i += len - 1;
      continue;
    }
    if (firstMatch(keys, i, CORRECT) && mentions.some((m) => m.negated || m.retracted)) correction = true;
    const b = firstMatch(keys, i, BREAKS);
    if (b) {
      endClause(i + b.words.length - 1);
      i += b.words.length - 1;
      continue;
    }
    const n = firstMatch(keys, i, NEG);
    if (n) {
      negating = true;
      i += n.words.length - 1;
      continue;
    }
    if (negating || keeping) excluded.add(i);
  }
  endClause(words.length);
  for (const m of dropped) m.retracted = true;
  let live = mentions.filter((m) => !m.negated && !m.retracted);
  // "New intern here … can you build me a lab?": "new" is the request's verb only when it has no other.
  if (live.some((m) => m.phrase !== "new")) live = live.filter((m) => m.phrase !== "new");
  // A correction after a negated or retracted action keeps the action and changes its object or values:
  // "don't install harbor, I meant quay", "install openshift 4.18, no wait, 4.19".
  const afterRetraction = retractedAt >= 0 && words.slice(retractedAt).some(hasDigit);
  if (!live.some((m) => m.action !== "keep") && (correction || afterRetraction)) {
    const carried = mentions.find((m) => m.action !== "keep" && !dropped.has(m));
    if (carried) live = [{ ...carried, negated: false, retracted: false }];
  }
  // "keep it" asks for nothing: with no other live action the request is withdrawn.
  // What the catalogue does (create, delete) outranks a side step said with it ("stop and delete vm web01").
  const action = (live.find((m) => m.action === "create" || m.action === "delete") ?? live.find((m) => m.action !== "keep"))?.action ?? null;
  // Question form is read on the clause that carries the action ("I'm on my third coffee, can you deploy …?").
  const first = live[0];
  const clauseFrom = first ? words.lastIndexOf(",", first.at) + 1 : 0;
  const clause = keys.slice(clauseFrom);
  const { start, polite } = afterPolite(clause);
  // "do not configure …" is an order, not a question.
  const asksAt = (ws: readonly string[], k: number) => {
    const q = firstMatch(ws, k, ASK);
    if (!q || ["not", "n't", "never"].includes(ws[k + 1] ?? "")) return false;
    // "do a sanity check" and "do me a favour" are orders; "do you have …" is a question ("does" shares the key of "do").
    return q.words[0] !== DO || SUBJECTS.has(ws[k + 1] ?? "");
  };
  const asks = asksAt(clause, start) || (clauseFrom > 0 && asksAt(keys, afterPolite(keys).start) && !polite);
  const question = (/\?\s*$/.test(raw.trim()) || asks) && !(polite && !asks);
  // "did the install finish?" asks about a change, it does not ask for one.
  const readOnly = action === null || action === "list" || action === "check" || (asks && !polite);
  const past = asks && PAST.has(clause[start] ?? "");
  const stateQuestion = question && readOnly && (past || words.some((x) => STATE.has(x.replace(/[?'].*$/, ""))));
  // Taken back: every action asked for was negated or retracted, or a retraction left no action at all.
  const withdrawn = action === null && (mentions.some((m) => m.action !== "keep") || retractedAt >= 0);
  return { words, action, mentions, asks, withdrawn, question, stateQuestion, excluded };
}

/** True when a clause carries an action word, a negation or a retraction: what the frame reads. */
export function hasClauseSignal(raw: string): boolean {
  const keys = frameWords(raw).map((w) => (w === "," ? w : wordKey(w)));
  return keys.some((_, i) => !!actionAt(keys, i) || !!firstMatch(keys, i, NEG) || !!firstMatch(keys, i, RETRACT));
}

/** The request without the words whose values must not be used (negated, or from a failed attempt). */
export function positiveText(frame: IntentFrame): string {
  return frame.words.filter((w, i) => !frame.excluded.has(i) && w !== ",").join(" ");
}
