import type { OperatorRegistry } from "@svc/engine/ports";
import { BUILTIN_OPERATORS, createOperatorRegistry } from "@svc/engine/operators";
import { createHostOperators } from "./host";
import type { HostOperatorDeps } from "./host";

/** The registry the scheduler (validation) and worker (execution) use: the engine's built-in operators and the host operators. */
export function defaultOperators(deps: HostOperatorDeps = {}): OperatorRegistry {
  return createOperatorRegistry([...BUILTIN_OPERATORS, ...createHostOperators(deps)]);
}
