import { z } from "zod";
import { TaskLogSchema } from "@svc/engine";
import { qBool, qInt } from "../query-schemas";
import { defineRoute, errors, taskParams } from "./route";

/**
 * Task logs: JSON {content, continuation_token} by default, text/plain when the Accept header
 * prefers it. `token` follows a running try: each call returns only lines written since.
 */
export const taskLogRoutes = [
  defineRoute({
    method: "get",
    path: "/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}/logs/{task_try_number}",
    operationId: "get_log",
    summary: "Get logs",
    tag: "TaskInstance",
    params: taskParams.extend({ task_try_number: qInt() }),
    query: z.object({ full_content: qBool().optional(), token: z.string().optional(), map_index: qInt().optional(), tail: qInt().min(0).optional() }),
    responses: { 200: { description: "Success.", schema: TaskLogSchema, text: true }, 400: errors[400], 401: errors[401], 404: errors[404] },
    async handler({ api, params, query, req, res }) {
      const chunk = await api.getTaskLog(params.dag_id, params.dag_run_id, params.task_id, params.task_try_number, {
        token: query.token,
        fullContent: query.full_content,
        tail: query.tail,
      });
      // Not in the JSON body (Airflow's shape); headers tell followers when to stop.
      res.setHeader("X-Log-Finished", String(chunk.finished));
      res.setHeader("X-Continuation-Token", chunk.continuation_token);
      // JSON unless the client asks for text/plain over JSON (a bare */* gets JSON).
      if (req.accepts(["application/json", "text/plain"]) === "text/plain") {
        return void res.type("text/plain").send(chunk.content);
      }
      return { content: chunk.content, continuation_token: chunk.continuation_token };
    },
  }),
];
