import type { z } from "zod";
import { BadRequestError } from "@svc/errors";

/** Parse request input with its zod schema; a failure is a 400 that names every bad field. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where: "path" | "query" | "body"): z.output<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issues = r.error.issues.map((i) => {
    const field = i.path.length ? i.path.join(".") : where;
    return { field, message: i.message };
  });
  const detail = issues.map((i) => `${i.field}: ${i.message}`).join("; ");
  throw new BadRequestError(detail, { field: issues[0]?.field, fields: issues });
}
