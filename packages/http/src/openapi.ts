import { z } from "zod";

type Json = Record<string, unknown>;
const SAFE = 9007199254740991;

/** Tidy zod's output: drop the ±2^53 bounds of plain ints and the raw union behind array query params. */
export function tidyJsonSchema(ctx: { jsonSchema: Json }): void {
  const s = ctx.jsonSchema;
  if (s.minimum === -SAFE) delete s.minimum;
  if (s.maximum === SAFE) delete s.maximum;
  if (s.type && s.anyOf) delete s.anyOf;
}

/** A zod schema as an OpenAPI 3.0 schema object, as the request (`input`) or the answer (`output`) sees it. */
export function openApiSchema(schema: z.ZodType, io: "input" | "output"): Json {
  return z.toJSONSchema(schema, { target: "openapi-3.0", io, unrepresentable: "any", override: tidyJsonSchema });
}

/** The OpenAPI description of requireAuth: HTTP basic or a bearer token on every operation not marked `security: []`. */
export const AUTH_SECURITY = {
  securitySchemes: { Basic: { type: "http", scheme: "basic" }, Bearer: { type: "http", scheme: "bearer" } },
  security: [{ Basic: [] as string[] }, { Bearer: [] as string[] }],
};
