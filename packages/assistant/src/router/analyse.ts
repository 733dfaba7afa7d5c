import { normalizeText, stem, tokenize } from "./normalize";

/** Index and query word forms: normalised, hyphens split (dotted tokens kept whole), suffixes folded. */
export function analyse(text: string): string[] {
  return tokenize(normalizeText(text))
    .flatMap((t) => (t.includes(".") ? [t] : t.split(/[-_]/)))
    .filter(Boolean)
    .map(stem);
}

/** Common words that carry no search signal (already in analysed form). */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  analyse(
    "a an the i we you me my our your to for of on in with and or please can could would need want some new it its " +
      "this that is are be do does did so just get give how what which who why when where there here about from at by " +
      "as if not no yes will should shall may might must has have had was were been being am any all",
  ),
);
