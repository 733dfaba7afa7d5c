import { z } from "zod";
import { ImportErrorCollectionSchema, ImportErrorSchema } from "@svc/engine";
import { pageQuery, qInt } from "../query-schemas";
import { defineRoute, errors } from "./route";

/** DAG files that failed to load. */
export const importErrorRoutes = [
  defineRoute({
    method: "get",
    path: "/importErrors",
    operationId: "get_import_errors",
    summary: "List import errors",
    tag: "ImportError",
    query: z.object({ ...pageQuery, order_by: z.string().optional() }),
    responses: { 200: { description: "Success.", schema: ImportErrorCollectionSchema }, 400: errors[400], 401: errors[401] },
    async handler({ api, query }) {
      return api.listImportErrors(query);
    },
  }),
  defineRoute({
    method: "get",
    path: "/importErrors/{import_error_id}",
    operationId: "get_import_error",
    summary: "Get an import error",
    tag: "ImportError",
    params: z.object({ import_error_id: qInt() }),
    responses: { 200: { description: "Success.", schema: ImportErrorSchema }, 400: errors[400], 401: errors[401], 404: errors[404] },
    async handler({ api, params }) {
      return api.getImportError(params.import_error_id);
    },
  }),
];
