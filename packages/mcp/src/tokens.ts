/** Rough token count of a text (about 4 characters a token for JSON and English): for sizing answers. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
