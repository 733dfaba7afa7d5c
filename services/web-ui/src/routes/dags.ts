import { z } from "zod";
import { DagCollectionSchema, DagDetailSchema, DagSchema, TaskCollectionSchema } from "@svc/engine";
import { BadRequestError } from "@svc/errors";
import { pickFields } from "../fields";
import { pageQuery, qArray, qBool, qCsv } from "../query-schemas";
import { readRoute } from "./read-route";
import { dagIdParams, defineRoute, errors } from "./route";

const fields = { fields: qArray().optional() };
const pauseBody = z.object({ is_paused: z.boolean() });

/** Only is_paused may change through the API, as in Airflow. */
function checkMask(mask: string[] | undefined): void {
  if (mask?.length && mask.some((m) => m !== "is_paused")) {
    throw new BadRequestError("update_mask: Only `is_paused` field can be updated through the REST API", { field: "update_mask" });
  }
}

/** /dags, /dags/{dag_id}, /dags/{dag_id}/details, /dags/{dag_id}/tasks */
export const dagRoutes = [
  defineRoute({
    method: "get",
    path: "/dags",
    operationId: "get_dags",
    summary: "List DAGs",
    tag: "DAG",
    query: z.object({
      ...pageQuery,
      order_by: z.string().optional(),
      tags: qArray().optional(),
      only_active: qBool().optional(),
      paused: qBool().optional(),
      dag_id_pattern: z.string().optional(),
      ...fields,
    }),
    responses: { 200: { description: "Success.", schema: DagCollectionSchema }, 400: errors[400], 401: errors[401] },
    async handler({ api, query }) {
      const out = await api.listDags(query);
      return { ...out, dags: out.dags.map((d) => pickFields(d, query.fields)) };
    },
  }),
  defineRoute({
    method: "patch",
    path: "/dags",
    operationId: "patch_dags",
    summary: "Update DAGs (pause/unpause by dag_id_pattern; ~ for all)",
    tag: "DAG",
    query: z.object({ ...pageQuery, tags: qArray().optional(), update_mask: qCsv().optional(), only_active: qBool().optional(), dag_id_pattern: z.string().min(1) }),
    body: pauseBody,
    responses: { 200: { description: "Success.", schema: DagCollectionSchema }, 400: errors[400], 401: errors[401], 404: errors[404] },
    async handler({ api, query, body }) {
      checkMask(query.update_mask);
      return api.setPausedByPattern(query.dag_id_pattern, body.is_paused, { onlyActive: query.only_active, tags: query.tags, limit: query.limit, offset: query.offset });
    },
  }),
  readRoute({
    path: "/dags/{dag_id}",
    operationId: "get_dag",
    summary: "Get basic information about a DAG",
    tag: "DAG",
    params: dagIdParams,
    schema: DagSchema,
    read: (api, params) => api.getDag(params.dag_id),
  }),
  defineRoute({
    method: "patch",
    path: "/dags/{dag_id}",
    operationId: "patch_dag",
    summary: "Update a DAG (is_paused)",
    tag: "DAG",
    params: dagIdParams,
    query: z.object({ update_mask: qCsv().optional() }),
    body: pauseBody,
    responses: { 200: { description: "Success.", schema: DagSchema }, 400: errors[400], 401: errors[401], 404: errors[404] },
    async handler({ api, params, query, body }) {
      checkMask(query.update_mask);
      return api.setPaused(params.dag_id, body.is_paused);
    },
  }),
  readRoute({
    path: "/dags/{dag_id}/details",
    operationId: "get_dag_details",
    summary: "Get a simplified representation of DAG",
    tag: "DAG",
    params: dagIdParams,
    schema: DagDetailSchema,
    read: (api, params) => api.getDagDetails(params.dag_id),
  }),
  defineRoute({
    method: "get",
    path: "/dags/{dag_id}/tasks",
    operationId: "get_tasks",
    summary: "Get tasks for DAG",
    tag: "DAG",
    params: dagIdParams,
    query: z.object({ order_by: z.string().optional() }),
    responses: { 200: { description: "Success.", schema: TaskCollectionSchema }, 400: errors[400], 401: errors[401], 404: errors[404] },
    async handler({ api, params, query }) {
      return api.listTasks(params.dag_id, query.order_by);
    },
  }),
];
