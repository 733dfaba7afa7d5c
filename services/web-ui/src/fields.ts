import { BadRequestError } from "@svc/errors";

/** Airflow's `fields` query parameter: return only the named fields of each object. */
export function pickFields<T extends object>(obj: T, fields: string[] | undefined): Partial<T> | T {
  if (!fields?.length) return obj;
  const unknown = fields.filter((f) => !(f in obj));
  if (unknown.length) throw new BadRequestError(`fields: unknown field(s) ${unknown.join(", ")}`, { field: "fields" });
  return Object.fromEntries(fields.map((f) => [f, (obj as Record<string, unknown>)[f]])) as Partial<T>;
}
