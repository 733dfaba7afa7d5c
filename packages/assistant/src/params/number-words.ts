/**
 * English cardinal number words as digits ("thirty-two" → 32, "a hundred" → 100, "one-node" →
 * 1-node), so that the size, count and topology readers see one form. Only whole words change:
 * "web-one" or "someone" stay as they are.
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

/** The value of one number word or a hyphenated tens-units pair ("forty", "thirty-two"), or undefined. */
export function numberWordValue(word: string): number | undefined {
  if (word in UNITS) return UNITS[word];
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
    // "three-node", "one-node": a number word glued to the noun it counts.
    const glued = /^([a-z]+)-([a-z]+)$/.exec(w);
    if (glued && numberWordValue(w) === undefined && numberWordValue(glued[1]!) !== undefined) {
      out.push(`${numberWordValue(glued[1]!)}-${glued[2]}`);
      continue;
    }
    let value = numberWordValue(w) ?? (w === "a" || w === "an" ? (words[i + 1] === "hundred" ? 1 : undefined) : undefined);
    if (value === undefined) {
      out.push(w);
      continue;
    }
    let j = i + 1;
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
