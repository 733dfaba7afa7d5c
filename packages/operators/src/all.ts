import { BASIC_OPERATORS } from "./basic";
import { createOperatorRegistry, type OperatorRegistry } from "./registry";

/** The registry the scheduler (validation) and worker (execution) use. Host operators are added here. */
export function defaultOperators(): OperatorRegistry {
  return createOperatorRegistry([...BASIC_OPERATORS]);
}
