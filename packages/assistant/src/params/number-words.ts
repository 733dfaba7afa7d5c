/**
 * English cardinal number words as digits ("thirty-two" → 32, "a hundred" → 100, "one-node" →
 * 1-node), fractions and dozens of an amount ("half a gig" → 0.5 gig, "one and a half" → 1.5,
 * "a quarter terabyte" → 0.25 terabyte, "a dozen" → 12), "a"/"a single" before a unit ("a gig",
 * "a single vcpu" → 1), and the small numbers of Spanish, German and French ("tres nodos",
 * "trois nœuds"), so that the size, count and topology readers see one form. Only whole words
 * change: "web-one" or "someone" stay as they are.
 */

const UNITS: Record<string, number> = {
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
};
const TENS: Record<string, number> = { twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90 };
/** Spanish, German and French 2–12 ("un", "uno", "ein" stay words: they are articles too). */
const OTHER_LANGUAGES: Record<string, number> = {
  dos: 2,
  tres: 3,
  cuatro: 4,
  cinco: 5,
  seis: 6,
  siete: 7,
  ocho: 8,
  nueve: 9,
  diez: 10,
  doce: 12,
  zwei: 2,
  drei: 3,
  vier: 4,
  funf: 5,
  fuenf: 5,
  sechs: 6,
  acht: 8,
  zehn: 10,
  zwolf: 12,
  deux: 2,
  trois: 3,
  quatre: 4,
  cinq: 5,
  huit: 8,
  douze: 12,
};
/** Words of an amount that "a", "a single" or a fraction can stand before ("a gig", "half a terabyte", "a single vcpu"). */
const UNIT_WORD = /^(gigs?|gigabytes?|gb|gib|megs?|megabytes?|mb|terabytes?|tb|tib|teras?|vcpus?|cpus?|cores?|processors?)$/;
const FRACTIONS: Record<string, number> = { half: 0.5, quarter: 0.25 };

/** The value of one number word or a hyphenated tens-units pair ("forty", "thirty-two"), or undefined. */
export function numberWordValue(word: string): number | undefined {
  if (word in UNITS) return UNITS[word];
  if (word in OTHER_LANGUAGES) return OTHER_LANGUAGES[word];
  if (word in TENS) return TENS[word];
  const pair = /^([a-z]+)-([a-z]+)$/.exec(word);
  if (pair && pair[1]! in TENS && pair[2]! in UNITS && UNITS[pair[2]!]! < 10 && UNITS[pair[2]!]! > 0) return TENS[pair[1]!]! + UNITS[pair[2]!]!;
  return undefined;
}

/**
 * Rewrites number words of a lower-case, space-separated text as digits: "twenty two" → 22,
 * "two hundred" → 200, "a hundred" → 100, "three-node" → 3-node.
 */
export function numberWordsToDigits(text: string): string {
  const words = text.split(" ");
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const fraction = readFraction(words, i);
    if (fraction) {
      out.push(String(fraction.value));
      i = fraction.next - 1;
      continue;
    }
    // "three-node", "one-node": a number word glued to the noun it counts.
    const glued = /^([a-z]+)-([a-z]+)$/.exec(w);
    if (glued && numberWordValue(w) === undefined && numberWordValue(glued[1]!) !== undefined) {
      out.push(`${numberWordValue(glued[1]!)}-${glued[2]}`);
      continue;
    }
    let value = numberWordValue(w) ?? (w === "a" || w === "an" ? (words[i + 1] === "hundred" ? 1 : undefined) : undefined);
    // "a dozen", "two dozen".
    if (w === "dozen" || ((w === "a" || value !== undefined) && words[i + 1] === "dozen")) {
      out.push(String(w === "dozen" ? 12 : (value ?? 1) * 12));
      if (w !== "dozen") i++;
      continue;
    }
    if (value === undefined) {
      out.push(w);
      continue;
    }
    let j = i + 1;
    // "one and a half gigs": the half belongs to the amount.
    if (words[j] === "and" && (words[j + 1] === "a" || words[j + 1] === "an") && words[j + 2] === "half") {
      out.push(String(value + 0.5));
      i = j + 2;
      continue;
    }
    // "twenty two": tens then units.
    if (value >= 20 && value % 10 === 0 && UNITS[words[j] ?? ""] !== undefined && UNITS[words[j]!]! > 0 && UNITS[words[j]!]! < 10) value += UNITS[words[j++]!]!;
    if (words[j] === "hundred") {
      value *= 100;
      j++;
      const rest = words[j] === "and" ? words[j + 1] : words[j];
      const tail = rest === undefined ? undefined : numberWordValue(rest);
      if (tail !== undefined && tail < 100) {
        value += tail;
        j += words[j] === "and" ? 2 : 1;
      }
    }
    out.push(String(value));
    i = j - 1;
  }
  return out.join(" ");
}

/**
 * A fraction or a single unit at i: "half a gig" / "half a terabyte" (0.5), "a quarter terabyte",
 * "a quarter of a terabyte" (0.25), "a gig" / "a single vcpu" / "one single core" (1); the amount's
 * value and the index of its unit word, or undefined.
 */
function readFraction(words: readonly string[], i: number): { value: number; next: number } | undefined {
  const w = words[i]!;
  const article = w === "a" || w === "an";
  // "half a gig", "half a terabyte of disk"
  if (w in FRACTIONS && (words[i + 1] === "a" || words[i + 1] === "an") && UNIT_WORD.test(words[i + 2] ?? "")) return { value: FRACTIONS[w]!, next: i + 2 };
  // "a half gig", "a quarter terabyte", "a quarter of a terabyte"
  if (article && (words[i + 1] ?? "") in FRACTIONS) {
    const f = FRACTIONS[words[i + 1]!]!;
    if (UNIT_WORD.test(words[i + 2] ?? "")) return { value: f, next: i + 2 };
    if (words[i + 2] === "of" && (words[i + 3] === "a" || words[i + 3] === "an") && UNIT_WORD.test(words[i + 4] ?? "")) return { value: f, next: i + 4 };
  }
  // "a gig of ram", "a single vcpu"
  if (article && UNIT_WORD.test(words[i + 1] ?? "")) return { value: 1, next: i + 1 };
  if ((article || w === "single") && (words[i + 1] === "single" || w === "single") && UNIT_WORD.test(words[w === "single" ? i + 1 : i + 2] ?? "")) {
    return { value: 1, next: w === "single" ? i + 1 : i + 2 };
  }
  return undefined;
}
