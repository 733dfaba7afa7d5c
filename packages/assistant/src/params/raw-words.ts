/** The request split into words as typed: case, symbols and quoted phrases kept. */
export interface RawWord {
  /** The word as typed (quotes removed from a quoted phrase; trailing punctuation removed). */
  text: string;
  /** Lower case, for matching markers. */
  lower: string;
  quoted: boolean;
}

const QUOTES: Record<string, string> = { '"': '"', "'": "'", "`": "`", "\u201c": "\u201d", "\u2018": "\u2019", "\u00ab": "\u00bb" };

/**
 * Splits on whitespace, keeping a quoted phrase ("my vm", 'a b') as one word and stripping the
 * sentence punctuation that ends a word ("web01," → web01). Nothing else is changed.
 */
export function rawWords(raw: string): RawWord[] {
  const text = raw.normalize("NFKC");
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
        out.push({ text: inner, lower: inner.toLowerCase(), quoted: true });
        i = end + 1;
        continue;
      }
    }
    let j = i;
    while (j < text.length && !/\s/.test(text[j]!)) j++;
    const word = text.slice(i, j).replace(/[,.;:!?)\]]+$/, "");
    if (word) out.push({ text: word, lower: word.toLowerCase(), quoted: false });
    i = j;
  }
  return out;
}
