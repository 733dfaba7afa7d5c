// @svc/engine/operators: the operators the engine ships with, as Airflow's core ships EmptyOperator,
// BashOperator and TriggerDagRunOperator (noop, sleep, fail, shell, trigger_dag_run), and the
// registry over any list of operators. The host operators (SSH, VMs, Ansible) are @svc/operators',
// which adds them to these; this entry loads none of the engine's runtime.
import { BASIC_OPERATORS } from "./basic";
import type { Operator } from "../ports/operator";
import { triggerDagRunOperator } from "./trigger-dag-run";
import { triggerDagRunsOperator } from "./trigger-dag-runs";

export { createOperatorCatalog, createOperatorRegistry, checkLiteralArgs } from "./registry";
export { shellOperator } from "./basic";

/** noop, sleep, fail, shell, trigger_dag_run and trigger_dag_runs: what every install can run, on no host. */
export const BUILTIN_OPERATORS: readonly Operator[] = [...BASIC_OPERATORS, triggerDagRunOperator, triggerDagRunsOperator];
