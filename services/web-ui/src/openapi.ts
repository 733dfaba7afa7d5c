import { z } from "zod";
import { API_COMPAT_VERSION, API_COMPONENTS } from "@svc/engine";
import { AUTH_SECURITY, openApiSchema as toSchema, tidyJsonSchema } from "@svc/http";
import type { RouteDef } from "./routes/route";

type Json = Record<string, unknown>;

const componentName = new Map<z.ZodType, string>(Object.entries(API_COMPONENTS).map(([name, s]) => [s as z.ZodType, name]));

function componentSchemas(): Json {
  const registry = z.registry<{ id: string }>();
  for (const [name, schema] of Object.entries(API_COMPONENTS)) registry.add(schema as z.ZodType, { id: name });
  const out = z.toJSONSchema(registry, { target: "openapi-3.0", uri: (id) => `#/components/schemas/${id}`, unrepresentable: "any", override: tidyJsonSchema }) as {
    schemas: Record<string, Json>;
  };
  for (const s of Object.values(out.schemas)) delete s.$id;
  return out.schemas;
}

function parameters(r: RouteDef): Json[] {
  const list: Json[] = [];
  for (const [where, obj] of [
    ["path", r.params],
    ["query", r.query],
  ] as const) {
    if (!obj) continue;
    const json = toSchema(obj, "input") as { properties?: Record<string, Json>; required?: string[] };
    for (const [name, schema] of Object.entries(json.properties ?? {})) {
      const isArray = schema.type === "array";
      list.push({
        name,
        in: where,
        required: where === "path" || (json.required ?? []).includes(name),
        schema,
        ...(isArray ? { style: "form", explode: name !== "update_mask" } : {}),
      });
    }
  }
  return list;
}

/** A $ref for response components (also inside unions), an inline schema otherwise. */
function responseSchema(schema: z.ZodType): Json {
  const name = componentName.get(schema);
  if (name) return { $ref: `#/components/schemas/${name}` };
  if (schema instanceof z.ZodUnion) return { anyOf: (schema.options as z.ZodType[]).map(responseSchema) };
  return toSchema(schema, "output");
}

function responses(r: RouteDef): Json {
  const out: Json = {};
  for (const [status, spec] of Object.entries(r.responses)) {
    const content: Json = {};
    if (Number(status) >= 400) content["application/problem+json"] = { schema: { $ref: "#/components/schemas/Error" } };
    else if (spec.schema) content["application/json"] = { schema: responseSchema(spec.schema) };
    if (spec.text) content["text/plain"] = { schema: { type: "string" } };
    out[status] = { description: spec.description, ...(Object.keys(content).length ? { content } : {}) };
  }
  return out;
}

/** The OpenAPI 3 document of what /api/v1 implements, generated from the route table's zod schemas. */
export function buildOpenApi(routes: RouteDef[]): Json {
  const paths: Record<string, Json> = {};
  for (const r of routes) {
    paths[r.path] ??= {};
    paths[r.path]![r.method] = {
      operationId: r.operationId,
      summary: r.summary,
      tags: [r.tag],
      parameters: parameters(r),
      ...(r.body ? { requestBody: { required: true, content: { "application/json": { schema: toSchema(r.body, "input") } } } } : {}),
      responses: responses(r),
      ...(r.public ? { security: [] } : {}),
    };
  }
  return {
    openapi: "3.0.3",
    info: { title: "svc engine REST API (Airflow 2 stable API compatible)", version: API_COMPAT_VERSION },
    servers: [{ url: "/api/v1" }],
    paths,
    components: {
      schemas: {
        ...componentSchemas(),
        Error: {
          type: "object",
          required: ["type", "title", "status"],
          properties: { type: { type: "string" }, title: { type: "string" }, status: { type: "number" }, detail: { type: "string" }, instance: { type: "string" } },
        },
      },
      securitySchemes: AUTH_SECURITY.securitySchemes,
    },
    security: AUTH_SECURITY.security,
  };
}
