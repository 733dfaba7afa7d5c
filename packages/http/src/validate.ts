import type { z } from "zod";
import { BadRequestError } from "@svc/errors";

/** Parse request input with its zod schema; a failure is a 400 that names every bad field. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where: "path" | "query" | "body"): z.output<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const fields = r.error.issues.map((i) => {
    // Unknown keys are reported on the object; name the key when there is one, so the client sees which.
    const keys = i.code === "unrecognized_keys" ? i.keys : [];
    const path = [...i.path, ...(keys.length === 1 ? keys : [])].map(String);
    return { field: path.length ? path.join(".") : where, message: i.message };
  });
  const detail = fields.map((f) => `${f.field}: ${f.message}`).join("; ");
  throw new BadRequestError(detail, { field: fields[0]?.field, fields });
}
