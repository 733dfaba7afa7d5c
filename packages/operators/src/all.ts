import { BASIC_OPERATORS } from "./basic";
import { createHostOperators } from "./host";
import type { HostOperatorDeps } from "./host";
import type { OperatorRegistry } from "@svc/engine/ports";
import { createOperatorRegistry } from "./registry";
import { triggerDagRunOperator } from "./trigger-dag-run";

/** The registry the scheduler (validation) and worker (execution) use: basic, trigger_dag_run and host operators. */
export function defaultOperators(deps: HostOperatorDeps = {}): OperatorRegistry {
  return createOperatorRegistry([...BASIC_OPERATORS, triggerDagRunOperator, ...createHostOperators(deps)]);
}
