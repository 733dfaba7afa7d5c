import { sql } from "kysely";
import { BadRequestError, NotFoundError } from "@svc/errors";
import type { ApiContext } from "./deps";
import { resolveOrder, resolvePage, type PageQuery } from "./paging";
import type { ApiImportError, ApiImportErrorCollection } from "./schemas";
import { importErrorToApi } from "./serialize";

const ORDER = { import_error_id: "import_error_id", timestamp: "timestamp", filename: "filename" } as const;

/** DAG files that failed to load, as Airflow's ImportError resource. */
export function importErrorOps(ctx: ApiContext) {
  const { db } = ctx;

  async function listImportErrors(q: PageQuery = {}): Promise<ApiImportErrorCollection> {
    const { limit, offset } = resolvePage(q, ctx.maxPageLimit);
    const order = resolveOrder(q.order_by, "import_error_id", ORDER);
    const [{ n }, rows] = await Promise.all([
      db
        .selectFrom("import_error")
        .select(sql<number>`count(*)::int`.as("n"))
        .executeTakeFirstOrThrow(),
      db.selectFrom("import_error").selectAll().orderBy(order.column, order.direction).orderBy("import_error_id").limit(limit).offset(offset).execute(),
    ]);
    return { import_errors: rows.map(importErrorToApi), total_entries: n };
  }

  async function getImportError(id: number): Promise<ApiImportError> {
    if (!Number.isSafeInteger(id)) throw new BadRequestError("import_error_id: must be an integer", { field: "import_error_id" });
    const row = await db.selectFrom("import_error").selectAll().where("import_error_id", "=", id).executeTakeFirst();
    if (!row) throw new NotFoundError("import_error_not_found", `The ImportError with import_error_id: \`${id}\` was not found`);
    return importErrorToApi(row);
  }

  return { listImportErrors, getImportError };
}
