import { z } from "zod";
import type { EngineApi } from "@svc/engine";
import { pickFields } from "../fields";
import { qArray } from "../query-schemas";
import { defineRoute, errors, type RouteDef } from "./route";

/**
 * A GET of one object named by its path ids (get_dag, get_dag_details, get_dag_run), answered with
 * only the `fields` asked for; 404 when the engine finds none.
 */
export function readRoute<P extends z.ZodObject<z.ZodRawShape>>(o: {
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  params: P;
  schema: z.ZodType;
  read(api: EngineApi, params: z.output<P>): Promise<object>;
}): RouteDef {
  return defineRoute({
    method: "get",
    path: o.path,
    operationId: o.operationId,
    summary: o.summary,
    tag: o.tag,
    params: o.params,
    query: z.object({ fields: qArray().optional() }),
    responses: { 200: { description: "Success.", schema: o.schema }, 401: errors[401], 404: errors[404] },
    async handler({ api, params, query }) {
      return pickFields(await o.read(api, params), query.fields);
    },
  });
}
