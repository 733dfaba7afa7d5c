import { McpServer } from "@modelcontextprotocol/server";
import { registerTools, type ToolDef } from "@svc/mcp";
import pkg from "../package.json";
import type { WorkflowToolDeps } from "./deps";
import { dagTools } from "./tools/dag-tools";
import { insightTools } from "./tools/insight-tools";
import { runTools } from "./tools/run-tools";
import { taskTools } from "./tools/task-tools";
import { vmTools } from "./tools/vm-tools";

export const WORKFLOW_SERVER_NAME = "svc-workflow";

const INSTRUCTIONS =
  "Workflow (DAG) tools of svc. Start with list_dags or explore_dag; get_dag_details gives the params a trigger conf must satisfy. " +
  "trigger_dag_and_wait runs a DAG to its end with progress; diagnose_dag_run explains a failed run in one call. Logs are bounded: use get_task_logs with grep/tail.";

/** Every workflow tool, in the order they are listed. */
export function workflowTools(deps: WorkflowToolDeps): ToolDef[] {
  return [...dagTools(deps), ...runTools(deps), ...taskTools(deps), ...insightTools(deps), ...vmTools(deps)];
}

/** A fresh server with the workflow tools its role may use (and only the reads when read-only). */
export function createWorkflowServer(deps: WorkflowToolDeps, opts: { readOnly: boolean }): McpServer {
  const server = new McpServer({ name: WORKFLOW_SERVER_NAME, version: pkg.version }, { instructions: INSTRUCTIONS });
  registerTools(server, workflowTools(deps), { readOnly: opts.readOnly, role: deps.role, logger: deps.logger });
  return server;
}
