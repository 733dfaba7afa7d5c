/** The request split into words as typed: case, symbols and quoted phrases kept. */
export interface RawWord {
  /** The word as typed (quotes removed from a quoted phrase; trailing punctuation removed). */
  text: string;
  /** Lower case, for matching markers. */
  lower: string;
  /** Lower case without accents or a trailing ':', '=' or ',': what markers are compared with. */
  key: string;
  quoted: boolean;
}

const QUOTES: Record<string, string> = { '"': '"', "'": "'", "`": "`", "\u201c": "\u201d", "\u2018": "\u2019", "\u00ab": "\u00bb" };

/** Lower case of the compatibility form, for matching markers ("ｃａｌｌｅｄ" is "called"); never a value. */
const lowerOf = (s: string) => s.normalize("NFKC").toLowerCase();
const keyOf = (lower: string) =>
  lower
    .replace(/[:=,]$/, "")
    .normalize("NFD")
    .replace(/\p{M}/gu, "");
const word = (text: string, quoted: boolean): RawWord => {
  const lower = lowerOf(text);
  return { text, lower, key: keyOf(lower), quoted };
};

/**
 * Splits on whitespace, keeping a quoted phrase ("my vm", 'a b') as one word and stripping the
 * sentence punctuation that ends a word ("web01," → web01). Nothing else is changed: `text` is as
 * typed (full-width letters stay full-width), and a word of punctuation only ("...") is kept whole.
 */
export function rawWords(raw: string): RawWord[] {
  const text = raw;
  const out: RawWord[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const close = QUOTES[c];
    if (close) {
      const end = text.indexOf(close, i + 1);
      if (end > i) {
        const inner = text.slice(i + 1, end);
        out.push(word(inner, true));
        i = end + 1;
        continue;
      }
    }
    let j = i;
    while (j < text.length && !/\s/.test(text[j]!)) j++;
    const typed = text.slice(i, j);
    out.push(word(typed.replace(/[,.;:!?)\]]+$/, "") || typed, false));
    i = j;
  }
  return out;
}
