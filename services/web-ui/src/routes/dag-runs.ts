import { z } from "zod";
import { DagRunCollectionSchema, DagRunSchema, TaskInstanceCollectionSchema } from "@svc/engine";
import { BadRequestError } from "@svc/errors";
import { roleAtLeast, roleOf } from "@svc/http";
import { pickFields } from "../fields";
import { dateRangeQuery, pageQuery, qArray, qDate, runDateRange } from "../query-schemas";
import { readRoute } from "./read-route";
import { dagIdParams, defineRoute, errors, runParams } from "./route";

const triggerBody = z.object({
  dag_run_id: z.string().min(1).nullable().optional(),
  logical_date: qDate().nullable().optional(),
  execution_date: qDate().nullable().optional(),
  conf: z.record(z.string(), z.unknown()).nullable().optional(),
  note: z.string().nullable().optional(),
});

const listForm = z.strictObject({
  order_by: z.string().optional(),
  page_offset: z.number().int().min(0).optional(),
  page_limit: z.number().int().min(1).optional(),
  dag_ids: z.array(z.string()).optional(),
  states: z.array(z.string()).optional(),
  ...runDateRange,
});

/** /dags/{dag_id}/dagRuns and below (runs, notes, state, clear), plus the batch list. */
export const dagRunRoutes = [
  defineRoute({
    method: "get",
    path: "/dags/{dag_id}/dagRuns",
    operationId: "get_dag_runs",
    summary: "List DAG runs (dag_id ~ for all DAGs)",
    tag: "DAGRun",
    params: dagIdParams,
    query: z.object({ ...pageQuery, ...dateRangeQuery, state: qArray().optional(), order_by: z.string().optional(), fields: qArray().optional() }),
    responses: { 200: { description: "List of DAG runs.", schema: DagRunCollectionSchema }, 400: errors[400], 401: errors[401], 404: errors[404] },
    async handler({ api, params, query }) {
      const { fields, ...q } = query;
      const out = await api.listDagRuns({ ...q, dag_id: params.dag_id });
      return { ...out, dag_runs: out.dag_runs.map((r) => pickFields(r, fields)) };
    },
  }),
  defineRoute({
    method: "post",
    path: "/dags/{dag_id}/dagRuns",
    operationId: "post_dag_run",
    summary: "Trigger a new DAG run",
    tag: "DAGRun",
    params: dagIdParams,
    body: triggerBody,
    responses: { 200: { description: "Success.", schema: DagRunSchema }, 400: errors[400], 401: errors[401], 403: errors[403], 404: errors[404], 409: errors[409] },
    async handler({ api, params, body, res }) {
      if (body.logical_date && body.execution_date && new Date(body.logical_date).getTime() !== new Date(body.execution_date).getTime()) {
        throw new BadRequestError("execution_date: differs from logical_date; give one of them", { field: "execution_date" });
      }
      return api.triggerDagRun(params.dag_id, {
        conf: body.conf ?? undefined,
        runId: body.dag_run_id ?? undefined,
        logicalDate: body.logical_date ?? body.execution_date ?? undefined,
        note: body.note ?? null,
        // Params declaring min_role (e.g. vm_deployment's force_foreign) only from that role up.
        callerHasRole: (role) => roleAtLeast(roleOf(res), role),
      });
    },
  }),
  defineRoute({
    method: "post",
    path: "/dags/~/dagRuns/list",
    operationId: "get_dag_runs_batch",
    summary: "List DAG runs (batch)",
    tag: "DAGRun",
    body: listForm,
    responses: { 200: { description: "Success.", schema: DagRunCollectionSchema }, 400: errors[400], 401: errors[401] },
    async handler({ api, body }) {
      const { page_limit, page_offset, states, ...rest } = body;
      return api.listDagRuns({ ...rest, limit: page_limit, offset: page_offset, state: states });
    },
  }),
  readRoute({
    path: "/dags/{dag_id}/dagRuns/{dag_run_id}",
    operationId: "get_dag_run",
    summary: "Get a DAG run",
    tag: "DAGRun",
    params: runParams,
    schema: DagRunSchema,
    read: (api, params) => api.getDagRun(params.dag_id, params.dag_run_id),
  }),
  defineRoute({
    method: "patch",
    path: "/dags/{dag_id}/dagRuns/{dag_run_id}",
    operationId: "update_dag_run_state",
    summary: "Modify a DAG run (mark success, failed or queued)",
    tag: "DAGRun",
    params: runParams,
    body: z.object({ state: z.enum(["success", "failed", "queued"]) }),
    responses: { 200: { description: "Success.", schema: DagRunSchema }, 400: errors[400], 401: errors[401], 404: errors[404] },
    async handler({ api, params, body }) {
      return api.markRun(params.dag_id, params.dag_run_id, body.state);
    },
  }),
  defineRoute({
    method: "delete",
    path: "/dags/{dag_id}/dagRuns/{dag_run_id}",
    operationId: "delete_dag_run",
    summary: "Delete a DAG run",
    tag: "DAGRun",
    params: runParams,
    status: 204,
    responses: { 204: { description: "Success." }, 400: errors[400], 401: errors[401], 404: errors[404] },
    async handler({ api, params, res }) {
      await api.deleteDagRun(params.dag_id, params.dag_run_id);
      res.status(204).end();
      return undefined;
    },
  }),
  defineRoute({
    method: "patch",
    path: "/dags/{dag_id}/dagRuns/{dag_run_id}/setNote",
    operationId: "set_dag_run_note",
    summary: "Update the DagRun note",
    tag: "DAGRun",
    params: runParams,
    body: z.object({ note: z.string() }),
    responses: { 200: { description: "Success.", schema: DagRunSchema }, 400: errors[400], 401: errors[401], 404: errors[404] },
    async handler({ api, params, body }) {
      return api.setRunNote(params.dag_id, params.dag_run_id, body.note);
    },
  }),
  defineRoute({
    method: "post",
    path: "/dags/{dag_id}/dagRuns/{dag_run_id}/clear",
    operationId: "clear_dag_run",
    summary: "Clear a DAG run (dry_run defaults to true)",
    tag: "DAGRun",
    params: runParams,
    body: z.strictObject({ dry_run: z.boolean().optional() }),
    responses: {
      200: { description: "The run after clearing, or (dry_run) the task instances that would be cleared.", schema: z.union([DagRunSchema, TaskInstanceCollectionSchema]) },
      400: errors[400],
      401: errors[401],
      404: errors[404],
    },
    async handler({ api, params, body }) {
      return api.clearDagRun(params.dag_id, params.dag_run_id, { dryRun: body.dry_run ?? true });
    },
  }),
];
