import { CHECK_MODE_BONUS, CREATE_TERMS, DELETE_TERMS, DOMAIN_KNOWLEDGE, STRONG, UNSUPPORTED_TERMS, type DomainKnowledge } from "./domain-knowledge";
import { normalizeText, stem, tokenize } from "./normalize";

/** Keyword evidence for one DAG. */
export interface KeywordScore {
  dag_id: string;
  score: number;
  matched: string[];
}

/** What a request asks for, in verb terms. */
export interface IntentVerbs {
  create: boolean;
  delete: boolean;
  check: boolean;
  /** The first operation verb no workflow performs (upgrade, restart, list, ...), if any. */
  unsupported: string | null;
}

type Phrase = string[];

function toPhrase(term: string): Phrase {
  return tokenize(normalizeText(term))
    .flatMap((t) => t.split(/[-_]/))
    .filter(Boolean)
    .map(stem);
}

/** True when phrase occurs as consecutive words of terms (whole words only: "vm" never matches "environment"). */
export function containsPhrase(terms: readonly string[], phrase: Phrase): boolean {
  if (phrase.length === 0) return false;
  outer: for (let i = 0; i + phrase.length <= terms.length; i++) {
    for (let j = 0; j < phrase.length; j++) if (terms[i + j] !== phrase[j]) continue outer;
    return true;
  }
  return false;
}

interface CompiledKnowledge {
  knowledge: DomainKnowledge;
  groups: { weight: number; terms: { text: string; phrase: Phrase }[] }[];
}

function compile(knowledge: DomainKnowledge): CompiledKnowledge {
  return { knowledge, groups: knowledge.groups.map((g) => ({ weight: g.weight, terms: g.terms.map((text) => ({ text, phrase: toPhrase(text) })) })) };
}

const COMPILED: CompiledKnowledge[] = DOMAIN_KNOWLEDGE.map(compile);
const CREATE_PHRASES = CREATE_TERMS.map(toPhrase);
const DELETE_PHRASES = DELETE_TERMS.map(toPhrase);
const UNSUPPORTED_PHRASES = UNSUPPORTED_TERMS.map((text) => ({ text, phrase: toPhrase(text) }));
const CHECK_PHRASES = COMPILED.filter((c) => c.knowledge.checks).flatMap((c) => c.groups.filter((g) => g.weight >= 2).flatMap((g) => g.terms.map((t) => t.phrase)));

/** Which kinds of verb the request carries. */
export function detectVerbs(terms: readonly string[]): IntentVerbs {
  return {
    create: CREATE_PHRASES.some((p) => containsPhrase(terms, p)),
    delete: DELETE_PHRASES.some((p) => containsPhrase(terms, p)),
    check: CHECK_PHRASES.some((p) => containsPhrase(terms, p)),
    unsupported: UNSUPPORTED_PHRASES.find((p) => containsPhrase(terms, p.phrase))?.text ?? null,
  };
}

/** Scores requests against the built-in knowledge plus knowledge derived for other DAGs. */
export type KeywordScorer = (terms: readonly string[], verbs: IntentVerbs) => Map<string, KeywordScore>;

/**
 * A scorer over the built-in knowledge and the given extra knowledge (DAGs the router has no
 * built-in words for). Built-in knowledge of DAGs absent from the catalogue still counts, so that
 * "a freeipa vm" is not taken for a plain VM when the identity DAG is missing.
 */
export function createKeywordScorer(extra: readonly DomainKnowledge[]): KeywordScorer {
  const compiled = [...COMPILED, ...extra.map(compile)];
  return (terms, verbs) => scoreWith(compiled, terms, verbs);
}

function scoreWith(compiled: readonly CompiledKnowledge[], terms: readonly string[], verbs: IntentVerbs): Map<string, KeywordScore> {
  const raw = compiled.map((c) => {
    let score = 0;
    let strongest = 0;
    const matched: string[] = [];
    for (const g of c.groups) {
      for (const t of g.terms) {
        if (!containsPhrase(terms, t.phrase)) continue;
        score += g.weight;
        strongest = Math.max(strongest, g.weight);
        matched.push(t.text);
      }
    }
    return { c, score, strongest, matched };
  });
  const strongElsewhere = (id: string) => raw.some((r) => r.c.knowledge.dag_id !== id && r.strongest >= STRONG);
  const out = new Map<string, KeywordScore>();
  for (const r of raw) {
    let score = r.score;
    const id = r.c.knowledge.dag_id;
    if (r.c.knowledge.generic && strongElsewhere(id)) score /= 2;
    // Asking to check (no create/delete verb) is what the health check is for.
    if (r.c.knowledge.checks && verbs.check && !verbs.create && !verbs.delete) score += CHECK_MODE_BONUS;
    out.set(id, { dag_id: id, score, matched: r.matched });
  }
  return out;
}
