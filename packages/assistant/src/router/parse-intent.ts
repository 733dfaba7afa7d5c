import type { RouterCatalogEntry } from "../types";
import { CREATE_TERMS, DELETE_TERMS, DOMAIN_KNOWLEDGE, FUNCTION_WORDS } from "./domain-knowledge";
import { createSpellFixer, normalizeText, stem, tokenize, type SpellFixer } from "./normalize";

/** An intent after normalisation, typo repair and tokenisation. */
export interface ParsedIntent {
  raw: string;
  normalized: string;
  /** Whole tokens after typo repair ("db-1", "lab.example.com" stay whole). */
  tokens: string[];
  /** The same tokens as typed, for values such as names. */
  original: string[];
  /** tokens joined by single spaces: what patterns run on. */
  text: string;
  /** Stemmed words for keyword matching: hyphenated tokens split, image families exposed. */
  terms: string[];
}

/** Words the param extractor looks for; part of the typo vocabulary. */
export const PARAM_WORDS = [
  "called",
  "named",
  "memory",
  "disk",
  "storage",
  "cpus",
  "vcpus",
  "cores",
  "processors",
  "image",
  "version",
  "domain",
  "single",
  "compact",
  "three",
  "full",
  "forwarder",
  "stream",
  "harbor",
  "quay",
  "mirror",
  "fedora",
  "ubuntu",
  "debian",
  "centos",
  "rocky",
  "almalinux",
  "please",
  "cluster",
  "virtual",
  "machine",
];

const IMAGE_FAMILY = /^(rhel|centos|fedora|ubuntu|debian|rocky|almalinux|alma)\d/;

/** Every word the typo repair may map to: built-in knowledge plus the catalogue's own words. */
export function buildVocabulary(catalog: readonly RouterCatalogEntry[]): Set<string> {
  const words = new Set<string>([...PARAM_WORDS, ...FUNCTION_WORDS]);
  const add = (text: string) => {
    for (const t of tokenize(normalizeText(text))) for (const p of t.split(/[-_.]/)) words.add(p);
  };
  for (const k of DOMAIN_KNOWLEDGE) for (const g of k.groups) g.terms.forEach(add);
  [...CREATE_TERMS, ...DELETE_TERMS].forEach(add);
  for (const e of catalog) {
    add(e.description ?? "");
    e.tags.forEach(add);
    e.examples.forEach(add);
  }
  return words;
}

/** Splits a token for keyword matching ("step-ca" → step, ca); dotted tokens stay whole. */
function matchTerms(token: string): string[] {
  // "ocp4.19", "openshift-4.18": the product and its version, glued.
  const glued = /^([a-z]{2,})-?v?(\d+(?:\.\d+)+)$/.exec(token);
  if (glued) return [stem(glued[1]!), glued[2]!];
  if (token.includes(".")) return [token];
  const parts = token.split(/[-_]/).filter(Boolean).map(stem);
  const family = IMAGE_FAMILY.exec(token);
  if (family?.[1]) parts.push(family[1] === "alma" ? "almalinux" : family[1]);
  return parts;
}

/** Normalises and tokenises an intent, repairing typos with the given fixer. */
export function parseIntent(raw: string, fix: SpellFixer): ParsedIntent {
  const normalized = normalizeText(raw);
  const original = tokenize(normalized);
  const tokens = original.map(fix);
  return { raw, normalized, tokens, original, text: tokens.join(" "), terms: tokens.flatMap(matchTerms) };
}

/** A parser bound to one catalogue's vocabulary. */
export function createIntentParser(catalog: readonly RouterCatalogEntry[]): (raw: string) => ParsedIntent {
  const fix = createSpellFixer(buildVocabulary(catalog));
  return (raw) => parseIntent(raw, fix);
}
