import { assertValidParams, createTemplateContext, renderArgs, type DagDefinition } from "@svc/dags";
import { stringify } from "yaml";

/** A task's args as a run with `conf` would render them, before any host is touched. */
export interface TaskArgsPreview {
  /** The run's params after validation, defaults applied. */
  params: Record<string, unknown>;
  args: Record<string, unknown>;
}

/** Options of renderTaskArgs. */
export interface PreviewOptions {
  /** Outputs of upstream tasks the templates read (`ti.<task>.output`), e.g. a vm_create result. */
  outputs?: Record<string, unknown>;
  runId?: string;
}

/**
 * Validate `conf` against the DAG's params (throws ParamsInvalidError naming each bad field) and
 * render one task's args the way the worker will. Pure: no database, no host.
 */
export function renderTaskArgs(dag: DagDefinition, taskId: string, conf: unknown, opts: PreviewOptions = {}): TaskArgsPreview {
  // A JSON round trip, as the params make on their way through the database to the worker: the
  // validator's structured clone can come from another realm (jest's sandbox), and templates only
  // read plain objects of their own realm.
  const params = assertValidParams(dag, conf);
  const task = dag.tasks.find((t) => t.task_id === taskId);
  if (!task) throw new Error(`DAG '${dag.dag_id}' has no task '${taskId}' (tasks: ${dag.tasks.map((t) => t.task_id).join(", ")})`);
  const ctx = createTemplateContext({
    dagId: dag.dag_id,
    runId: opts.runId ?? "manual__preview",
    logicalDate: new Date(0),
    params,
    outputs: opts.outputs,
  });
  return { params, args: renderArgs(task.args, ctx) };
}

/** What an ansible_playbook task will run: the playbook, its target, check mode and extra-vars (also as YAML). */
export interface PlaybookPreview extends TaskArgsPreview {
  playbook: string;
  check: boolean;
  extraVars: Record<string, unknown>;
  /** The extra-vars as the YAML text a reviewer reads. */
  extraVarsYaml: string;
}

/** renderTaskArgs for an ansible_playbook task, with its extra-vars shown as YAML. */
export function previewPlaybookTask(dag: DagDefinition, taskId: string, conf: unknown, opts: PreviewOptions = {}): PlaybookPreview {
  const task = dag.tasks.find((t) => t.task_id === taskId);
  if (task && task.operator !== "ansible_playbook") throw new Error(`task '${taskId}' of '${dag.dag_id}' runs ${task.operator}, not ansible_playbook`);
  const rendered = renderTaskArgs(dag, taskId, conf, opts);
  const extraVars = (rendered.args.extra_vars ?? {}) as Record<string, unknown>;
  return {
    ...rendered,
    playbook: String(rendered.args.playbook),
    check: rendered.args.check === true,
    extraVars,
    extraVarsYaml: stringify(extraVars),
  };
}
