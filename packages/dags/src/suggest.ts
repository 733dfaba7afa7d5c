/** Edit distance, capped: we only care about near misses. */
function distance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3) return 99;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/** " (did you mean 'x'?)" for the closest candidate within a small edit distance, else "". */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  if (word.length < 3) return ""; // anything is "close" to a one- or two-letter word
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = distance(word.toLowerCase(), c.toLowerCase());
    if (d <= Math.max(1, Math.floor(Math.max(word.length, c.length) * 0.45)) && d < bestD) {
      best = c;
      bestD = d;
    }
  }
  return best === undefined ? "" : ` (did you mean '${best}'?)`;
}
