import { BASIC_OPERATORS } from "./basic";
import { createHostOperators } from "./host";
import type { HostOperatorDeps } from "./host";
import { createOperatorRegistry, type OperatorRegistry } from "./registry";

/** The registry the scheduler (validation) and worker (execution) use: basic plus host operators. */
export function defaultOperators(deps: HostOperatorDeps = {}): OperatorRegistry {
  return createOperatorRegistry([...BASIC_OPERATORS, ...createHostOperators(deps)]);
}
