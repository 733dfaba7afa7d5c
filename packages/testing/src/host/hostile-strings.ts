/**
 * Strings built to break naive command construction: shell metacharacters, quotes, command
 * substitution, option look-alikes, globs, control characters, unicode, very long words.
 * None contains NUL (no argv can carry it; see NUL_STRINGS).
 */
export const HOSTILE_STRINGS: readonly string[] = [
  "", " ", "  leading and trailing  ", "a b", "\t", "tab\there",
  ";", "; rm -rf /tmp/svc-pwned", "&& touch /tmp/svc-pwned", "|| true", "| cat /etc/passwd", "&",
  "$(touch /tmp/svc-pwned)", "`touch /tmp/svc-pwned`", "${HOME}", "$HOME", "$0", "$@", "$*", "$$", "$?", "$((1+1))",
  "'", "''", "'\\''", "\"", "\"\"", "\"$(id)\"", "'$(id)'", "it's", "a'b\"c`d$e",
  "\\", "\\\\", "\\n", "back\\slash",
  "\n", "line1\nline2", "\r\n", "trailing newline\n", "\nleading newline",
  "--help", "-rf", "--option=value", "-", "--", "-e", "-n",
  "*", "?", "[a-z]*", "~", "~root", "{a,b}", "/*", "..", "../../etc/passwd",
  "> /tmp/svc-pwned", "< /etc/passwd", "2>&1", ">>", "<<EOF",
  "!", "!!", "#comment", "a#b", "%s%n", "=", "a=b", "IFS=x",
  "ünïcödé", "日本語のテキスト", "emoji 🚀🔥", "\u202Eright-to-left", "\u00A0nbsp", "zero\u200Bwidth",
  "\x01\x02\x1b[31mred\x1b[0m", "\x7f", "bell\x07",
  "x".repeat(10_000), "'".repeat(500), "$(".repeat(200),
  "eval $(echo aWQ= | base64 -d)", "a\nrm -rf /tmp/svc-pwned\n", "';touch /tmp/svc-pwned;'", "\";touch /tmp/svc-pwned;\"",
];

/** Strings with NUL: every command path must reject them with a clear message. */
export const NUL_STRINGS: readonly string[] = ["\0", "a\0b", "--opt\0; touch /tmp/svc-pwned"];
