import { analyse, STOP_WORDS } from "../router/analyse";
import type { DocHit } from "./docs-index";

const MAX_SENTENCES = 3;

const ITEM_START = /^\s*([-*+]|\d+\.)\s+|^\s*\|/;

/** Inline markdown removed so that sentences read as prose (underscores stay: they are part of names). */
function inline(text: string): string {
  return text
    .replace(/\[([^\]]+)\]\([^)]*\)/g, "$1")
    .replace(/[*`>#]/g, "")
    .replace(/\|/g, " ")
    .replace(/-{3,}/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** Hard-wrapped lines joined back into their paragraph or list item; code blocks dropped. */
function items(text: string): string[] {
  const out: string[] = [];
  for (const block of text.replace(/```[\s\S]*?```/g, "\n\n").split(/\n\s*\n/)) {
    let cur = "";
    for (const line of block.split("\n")) {
      if (ITEM_START.test(line) && cur) {
        out.push(cur);
        cur = "";
      }
      cur = cur ? `${cur} ${line.replace(ITEM_START, "")}` : line.replace(ITEM_START, "");
    }
    if (cur) out.push(cur);
  }
  return out.map(inline).filter(Boolean);
}

/** Sentences and list items, each on its own. */
export function sentencesOf(text: string): string[] {
  return items(text)
    .flatMap((item) => item.split(/(?<=[.!?])\s+(?=[A-Z0-9"(])/))
    .map((s) => s.trim())
    .filter((s) => s.length >= 12);
}

/**
 * The sentences of the best passages that share the most query words, in passage order,
 * each cited as [n] where n is the passage's position in hits (1-based).
 */
export function extractAnswer(question: string, hits: readonly DocHit[]): string {
  const q = new Set(analyse(question).filter((t) => !STOP_WORDS.has(t)));
  const scored = hits.flatMap((h, hi) =>
    sentencesOf(h.text).map((s, si) => {
      const words = new Set(analyse(s));
      const overlap = [...q].filter((t) => words.has(t)).length;
      return { s, hi, si, score: overlap + (hits.length - hi) * 0.1 };
    }),
  );
  let picked = scored
    .filter((x) => x.score >= 1)
    .sort((a, b) => b.score - a.score)
    .slice(0, MAX_SENTENCES);
  // The match may be in a heading only: then the section's opening says what it is about.
  if (picked.length === 0) picked = scored.filter((x) => x.hi === 0).slice(0, 2);
  picked.sort((a, b) => a.hi - b.hi || a.si - b.si);
  return picked.map((x) => `${/[.!?:]$/.test(x.s) ? x.s : `${x.s}.`} [${x.hi + 1}]`).join(" ");
}
