import { describeHosts, parsePgUrl } from "@svc/db";

/** A failure the CLI reports as one line on stderr with a non-zero exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = "CliError";
  }
}

/** Wrong command line: exit code 2, like argparse. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, 2);
  }
}

const UNREACHABLE = new Set(["ECONNREFUSED", "ENOTFOUND", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN", "ECONNRESET", "57P03"]);

function codesOf(e: unknown): string[] {
  const err = e as { code?: unknown; errors?: unknown[] };
  const own = typeof err?.code === "string" ? [err.code] : [];
  return [...own, ...(Array.isArray(err?.errors) ? err.errors.flatMap(codesOf) : [])];
}

/** host:port of a database URL, never its credentials. */
export function describeDbUrl(url: string): string {
  try {
    // libpq's multi-host form names every host: h1:p1,h2:p2.
    if (url.includes(",")) return describeHosts(parsePgUrl(url).hosts);
    const u = new URL(url);
    return `${u.hostname || "localhost"}:${u.port || "5432"}`;
  } catch {
    return "(unparseable DATABASE_URL)";
  }
}

/** Database connection failures as a one-line CliError; other errors pass through unchanged. */
export function databaseError(e: unknown, databaseUrl: string): unknown {
  const codes = codesOf(e);
  const where = describeDbUrl(databaseUrl);
  const code = codes.find((c) => UNREACHABLE.has(c));
  if (code) return new CliError(`cannot reach the metadata database at ${where} (${code}); is Postgres running and DATABASE_URL right?`);
  if (codes.includes("3D000")) return new CliError(`the metadata database at ${where} does not exist; run \`svc-engine db migrate\``);
  if (codes.includes("42P01")) return new CliError(`the metadata database at ${where} has no tables; run \`svc-engine db migrate\``);
  if (codes.includes("28P01") || codes.includes("28000")) return new CliError(`the metadata database at ${where} refused the credentials in DATABASE_URL`);
  return e;
}
