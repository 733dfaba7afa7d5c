import { z } from "zod";

/** Query-string pieces shared by the routers: Express gives strings (arrays for repeated keys). */

/** Integer query parameter (documented as integer). */
export const qInt = () => z.coerce.number().int();

/** Boolean query parameter: true/false (also 1/0, yes/no). */
export const qBool = () => z.stringbool().meta({ type: "boolean" });

/** ISO 8601 date-time with offset. */
export const qDate = () => z.iso.datetime({ offset: true });

/** Repeatable query parameter (`state=a&state=b`), always an array after parsing. */
export const qArray = () =>
  z
    .union([z.string(), z.array(z.string())])
    .transform((v) => (Array.isArray(v) ? v : [v]))
    .meta({ type: "array", items: { type: "string" } });

/** Comma-separated list (`update_mask=a,b`, style form, explode false). */
export const qCsv = () =>
  z.union([z.string(), z.array(z.string())]).transform((v) =>
    (Array.isArray(v) ? v : [v])
      .flatMap((s) => s.split(","))
      .map((s) => s.trim())
      .filter(Boolean),
  );

/** limit / offset, as Airflow names them. */
export const pageQuery = { limit: qInt().optional(), offset: qInt().optional() };

/** Execution, start and end date ranges: the filters of the batch lists. */
export const runDateRange = {
  execution_date_gte: qDate().optional(),
  execution_date_lte: qDate().optional(),
  start_date_gte: qDate().optional(),
  start_date_lte: qDate().optional(),
  end_date_gte: qDate().optional(),
  end_date_lte: qDate().optional(),
};

/** Date range filters of runs and task instances. */
export const dateRangeQuery = {
  ...runDateRange,
  updated_at_gte: qDate().optional(),
  updated_at_lte: qDate().optional(),
};
