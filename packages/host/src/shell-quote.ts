import { NonRetryableError } from "@svc/errors";

/**
 * The one way argv becomes a remote shell command string: every word POSIX single-quoted,
 * so `sh -c` sees exactly these words. NUL cannot travel through a C argv: rejected.
 */
export function shellQuote(argv: readonly string[]): string {
  if (argv.length === 0) throw new NonRetryableError("cannot quote an empty command");
  return argv.map(quoteWord).join(" ");
}

/** Single-quote one word: `'` becomes `'\''`; nothing inside single quotes is special to sh. */
export function quoteWord(word: string): string {
  if (typeof word !== "string") throw new NonRetryableError(`command word must be a string, got ${typeof word}`);
  if (word.includes("\0")) throw new NonRetryableError("command word contains a NUL byte, which no command can receive");
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
