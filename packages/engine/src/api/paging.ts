import { BadRequestError } from "@svc/errors";

/** Airflow's `maximum_page_limit` default. */
export const DEFAULT_MAX_PAGE_LIMIT = 100;

export type DateBound = string | Date;

/** Airflow's date-range filters shared by the run and task-instance lists. */
export interface DateRangeFilters {
  execution_date_gte?: DateBound;
  execution_date_lte?: DateBound;
  start_date_gte?: DateBound;
  start_date_lte?: DateBound;
  end_date_gte?: DateBound;
  end_date_lte?: DateBound;
  updated_at_gte?: DateBound;
  updated_at_lte?: DateBound;
}

export interface PageQuery {
  limit?: number;
  offset?: number;
  order_by?: string;
}

/**
 * Airflow's paging rules: limit defaults to 100, is silently capped at the maximum page limit and
 * must be positive; offset must not be negative.
 */
export function resolvePage(q: PageQuery, maxLimit: number): { limit: number; offset: number } {
  const limit = q.limit ?? DEFAULT_MAX_PAGE_LIMIT;
  const offset = q.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 1) throw new BadRequestError("limit: Page limit must be a positive integer", { field: "limit" });
  if (!Number.isInteger(offset) || offset < 0) throw new BadRequestError("offset: Page offset must not be negative", { field: "offset" });
  return { limit: Math.min(limit, maxLimit), offset };
}

/**
 * `order_by` as Airflow takes it (`field` or `-field`), mapped to a column through `allowed`
 * (API field name → column). Unknown fields are a 400, as in Airflow.
 */
export function resolveOrder<C extends string>(orderBy: string | undefined, fallback: string, allowed: Record<string, C>): { column: C; direction: "asc" | "desc" } {
  const raw = (orderBy ?? fallback).trim();
  const desc = raw.startsWith("-");
  const name = desc ? raw.slice(1) : raw;
  const column = Object.prototype.hasOwnProperty.call(allowed, name) ? allowed[name] : undefined;
  if (!column) {
    throw new BadRequestError(`order_by: Ordering with '${name}' is disallowed or the attribute does not exist on the model`, { field: "order_by" });
  }
  return { column, direction: desc ? "desc" : "asc" };
}
