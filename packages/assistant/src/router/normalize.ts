/** Unicode NFKC, lower case, typographic quotes and dashes folded to ASCII, whitespace collapsed. */
export function normalizeText(raw: string): string {
  return (
    raw
      .normalize("NFKC")
      .toLowerCase()
      // Accents folded ("máquina" → maquina, "lösche" → losche) so that words stay whole.
      .normalize("NFD")
      .replace(/\p{M}/gu, "")
      .replace(/ß/g, "ss")
      .replace(/œ/g, "oe")
      .replace(/æ/g, "ae")
      .replace(/[\u2018\u2019\u02bc`´]/g, "'")
      .replace(/[\u201c\u201d]/g, '"')
      .replace(/[\u2010-\u2015\u2212]/g, "-")
      .replace(/\s+/g, " ")
      .trim()
  );
}

/**
 * Whole tokens only: letters and digits, joined inside by '.', '-' or '_' so that
 * domains (lab.example.com), names (db-1) and versions (4.19) survive as one token.
 */
export function tokenize(normalized: string): string[] {
  return normalized.replace(/'/g, "").match(/[a-z0-9]+(?:[._-][a-z0-9]+)*/g) ?? [];
}

const NO_STRIP = /(ss|us|is|ys)$/;

/** Drops a doubled final consonant left by a suffix ("gapped" → "gap"). */
function undouble(w: string): string {
  return /([b-df-hj-np-tv-z])\1$/.test(w) && !/(ss|ll)$/.test(w) ? w.slice(0, -1) : w;
}

/** Light suffix folding: "certificates" → certificate, "vms" → vm, "mirroring" → mirror, "decommissioned" → decommission. */
export function stem(token: string): string {
  if (token === "vms") return "vm";
  if (/^[a-z]+$/.test(token) && token.length >= 7 && token.endsWith("ing")) return undouble(token.slice(0, -3));
  if (/^[a-z]+$/.test(token) && token.length >= 6 && token.endsWith("ed") && !token.endsWith("eed")) return undouble(token.slice(0, -2));
  if (token.length >= 4 && token.endsWith("ies")) return `${token.slice(0, -3)}y`;
  if (token.length >= 4 && token.endsWith("s") && !NO_STRIP.test(token)) return token.slice(0, -1);
  return token;
}

/** Optimal-string-alignment distance: a transposition ("openshfit") costs one edit. */
export function editDistance(a: string, b: string, limit = 3): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row: number[] = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const prev = rows[i - 1]!;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      row.push(d);
    }
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}

/** Maps a misspelt word to the closest vocabulary word, or returns it unchanged. */
export type SpellFixer = (token: string) => string;

/**
 * Typo tolerance against a closed vocabulary: words of 5+ letters may be one edit away
 * (two from 8 letters on). Ties between different words leave the token alone, so that
 * a guess never replaces the user's word with an arbitrary one.
 */
export function createSpellFixer(vocabulary: Iterable<string>): SpellFixer {
  const words = new Set<string>();
  for (const w of vocabulary) if (/^[a-z]+$/.test(w)) words.add(w);
  const byLength = new Map<number, string[]>();
  for (const w of words) {
    const list = byLength.get(w.length) ?? [];
    list.push(w);
    byLength.set(w.length, list);
  }
  const cache = new Map<string, string>();
  return (token) => {
    if (token.length < 5 || !/^[a-z]+$/.test(token) || words.has(token)) return token;
    const hit = cache.get(token);
    if (hit !== undefined) return hit;
    const limit = token.length >= 8 ? 2 : 1;
    let best: string[] = [];
    let bestD = limit + 1;
    for (let len = token.length - limit; len <= token.length + limit; len++) {
      for (const w of byLength.get(len) ?? []) {
        if (w.length < 4) continue;
        const d = editDistance(token, w, limit);
        if (d < bestD) {
          bestD = d;
          best = [w];
        } else if (d === bestD) best.push(w);
      }
    }
    // Plural and singular of one word are not a real tie.
    const unique = new Set(best.map(stem));
    const fixed = bestD <= limit && unique.size === 1 ? best[0]! : token;
    cache.set(token, fixed);
    return fixed;
  };
}
