// @svc/operators/catalog: every operator's name and argument schema, for the processes that validate
// DAG files but run no task (the web UI, the assistant API's engine). It loads the schemas only:
// none of the SSH, VM, Ansible or HTTP client code the worker's defaultOperators() runs.
import type { OperatorCatalog } from "@svc/dags";
import { BUILTIN_OPERATORS, createOperatorCatalog } from "@svc/engine/operators";
import { HOST_OPERATOR_ARGS } from "./host/args-by-name";

/** The DAG validator's catalog of defaultOperators(): the same names and argument checks, without their code. */
export function operatorCatalog(): OperatorCatalog {
  return createOperatorCatalog(new Map([...BUILTIN_OPERATORS.map((o) => [o.name, o.args] as const), ...HOST_OPERATOR_ARGS]));
}
