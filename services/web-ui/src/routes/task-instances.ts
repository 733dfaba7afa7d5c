import { z } from "zod";
import { TaskInstanceCollectionSchema, TaskInstanceReferenceCollectionSchema, TaskInstanceSchema } from "@svc/engine";
import { dateRangeQuery, pageQuery, qArray, qDate } from "../query-schemas";
import { dagIdParams, defineRoute, errors, runParams, taskParams } from "./route";

const clearBody = z.strictObject({
  dry_run: z.boolean().optional(),
  task_ids: z.array(z.string()).min(1).optional(),
  start_date: qDate().optional(),
  end_date: qDate().optional(),
  only_failed: z.boolean().optional(),
  only_running: z.boolean().optional(),
  include_subdags: z.boolean().optional(),
  include_parentdag: z.boolean().optional(),
  reset_dag_runs: z.boolean().optional(),
  dag_run_id: z.string().nullable().optional(),
  include_upstream: z.boolean().optional(),
  include_downstream: z.boolean().optional(),
  include_future: z.boolean().optional(),
  include_past: z.boolean().optional(),
});

/** Task instances of a run, one task instance, and Airflow's clearTaskInstances action. */
export const taskInstanceRoutes = [
  defineRoute({
    method: "get",
    path: "/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances",
    operationId: "get_task_instances",
    summary: "List task instances (~ for all DAGs / runs)",
    tag: "TaskInstance",
    params: runParams,
    query: z.object({
      ...pageQuery,
      ...dateRangeQuery,
      state: qArray().optional(),
      duration_gte: z.coerce.number().optional(),
      duration_lte: z.coerce.number().optional(),
      pool: qArray().optional(),
      queue: qArray().optional(),
      executor: qArray().optional(),
    }),
    responses: { 200: { description: "Success.", schema: TaskInstanceCollectionSchema }, 400: errors[400], 401: errors[401], 404: errors[404] },
    async handler({ api, params, query }) {
      return api.listTaskInstances(params.dag_id, params.dag_run_id, query);
    },
  }),
  defineRoute({
    method: "get",
    path: "/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}",
    operationId: "get_task_instance",
    summary: "Get a task instance",
    tag: "TaskInstance",
    params: taskParams,
    responses: { 200: { description: "Success.", schema: TaskInstanceSchema }, 401: errors[401], 404: errors[404] },
    async handler({ api, params }) {
      return api.getTaskInstance(params.dag_id, params.dag_run_id, params.task_id);
    },
  }),
  defineRoute({
    method: "post",
    path: "/dags/{dag_id}/clearTaskInstances",
    operationId: "post_clear_task_instances",
    summary: "Clear a set of task instances (dry_run and only_failed default to true)",
    tag: "DAG",
    params: dagIdParams,
    body: clearBody,
    responses: { 200: { description: "Success.", schema: TaskInstanceReferenceCollectionSchema }, 400: errors[400], 401: errors[401], 404: errors[404] },
    async handler({ api, params, body }) {
      return api.clearTaskInstances(params.dag_id, body);
    },
  }),
];
