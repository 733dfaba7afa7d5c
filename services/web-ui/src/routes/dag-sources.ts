import { z } from "zod";
import { SvcError } from "@svc/errors";
import { defineRoute, errors } from "./route";

/** Content negotiation as Airflow: text/plain first, JSON on request, 406 otherwise. */
export const dagSourceRoutes = [
  defineRoute({
    method: "get",
    path: "/dagSources/{file_token}",
    operationId: "get_dag_source",
    summary: "Get a source code",
    tag: "DAG",
    params: z.object({ file_token: z.string().min(1) }),
    responses: {
      200: { description: "Success.", schema: z.object({ content: z.string() }), text: true },
      401: errors[401],
      404: errors[404],
      406: { description: "A specified Accept header is not allowed." },
    },
    async handler({ api, params, req, res }) {
      const type = req.accepts(["text/plain", "application/json"]);
      if (!type) throw new SvcError("not_acceptable", "Accept text/plain or application/json");
      const { content } = await api.getDagSource(params.file_token);
      if (type === "text/plain") return void res.type("text/plain").send(content);
      return { content };
    },
  }),
];
