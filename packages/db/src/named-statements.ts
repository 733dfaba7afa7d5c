import { createHash } from "node:crypto";
import { CompiledQuery, type Kysely } from "kysely";
import type pg from "pg";
import type { Database } from "./schema";

/**
 * Hot statements are sent as named (prepared) statements: Postgres parses and plans them once per
 * connection instead of once per call (a flow's insert with its audit event: about 0.6 → 0.3 ms of
 * the server's CPU here). Kysely sends every statement unnamed, so the code that owns a hot
 * statement marks its text with `prepared(text)`, and every client of createPool sends a marked
 * text under a name derived from it. Only marked texts are named: their number is fixed by the
 * code, so each connection holds a bounded set of prepared statements (dynamic texts, such as
 * `in ($1, $2, …)` lists, stay unnamed).
 */
const MARK = "/*svc:prepared*/ ";

/** `text` marked to be sent as a named statement by the clients of createPool (same SQL). */
export function prepared(text: string): string {
  return text.startsWith(MARK) ? text : MARK + text;
}

const names = new Map<string, string>();
/**
 * Distinct marked texts a process names; later ones go unnamed. The code marks a few dozen; the
 * cap only guards against a marked text that carries its values inline (one name per call).
 */
export const MAX_NAMED_TEXTS = 256;

/** The statement name of a marked text (a hash of it: one name per distinct text), else undefined. */
export function statementName(text: unknown): string | undefined {
  if (typeof text !== "string" || !text.startsWith(MARK)) return undefined;
  let name = names.get(text);
  if (name === undefined) {
    if (names.size >= MAX_NAMED_TEXTS) return undefined;
    name = `svc_${createHash("sha1").update(text).digest("hex").slice(0, 20)}`;
    names.set(text, name);
  }
  return name;
}

/**
 * A table whose columns changed under a prepared `select *` or `returning *` (a migration while
 * the process runs) fails that statement with this error until it is prepared again; nothing ran.
 */
const isStaleResultType = (e: unknown) => (e as { code?: string }).code === "0A000" && /cached plan must not change result type/.test(String((e as Error).message));

type Query = (...args: unknown[]) => unknown;
type PgConnection = { parsedStatements: Record<string, string>; submittedNamedStatements: Record<string, string> };

/**
 * Make `client` send marked texts as named statements (kysely calls `query(text, values)`; the
 * other call forms pass through). A statement whose prepared form went stale is sent unnamed on
 * this connection from then on, and retried once outside a transaction (in one, the error stands).
 */
export function nameMarkedStatements(client: pg.Client | pg.PoolClient): void {
  const query = client.query.bind(client) as Query;
  const unnamed = new Set<string>();
  const connection = (client as unknown as { connection: PgConnection }).connection;
  (client as unknown as { query: Query }).query = (...args: unknown[]) => {
    const [text, values, callback] = args;
    const name = statementName(text);
    if (name === undefined || typeof values === "function" || callback !== undefined || unnamed.has(name)) return query(...args);
    const run = query({ name, text, values }) as Promise<unknown>;
    return run.catch(async (e: unknown) => {
      if (!isStaleResultType(e)) throw e;
      unnamed.add(name);
      delete connection.parsedStatements[name];
      delete connection.submittedNamedStatements[name];
      // "I": idle, outside a transaction block (as the failed statement left it).
      if ((client as unknown as { getTransactionStatus?: () => string | null }).getTransactionStatus?.() !== "I") throw e;
      return query(text, values);
    });
  };
}

/**
 * Run a query (a kysely builder or `sql` template) as a named statement: compiled as usual, its
 * text marked. For the statements every intent or run sends; a builder's text must not vary.
 */
export async function runPrepared<R>(db: Kysely<Database>, query: { compile(db: Kysely<Database>): CompiledQuery<R> }): Promise<R[]> {
  const c = query.compile(db);
  return (await db.executeQuery<R>(CompiledQuery.raw(prepared(c.sql), [...c.parameters]))).rows;
}
