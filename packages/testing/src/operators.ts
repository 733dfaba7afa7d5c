// The product's operators, as tests of the engine wire them into a runtime: the engine declares
// the operator ports and depends on no operator (the worker and scheduler services wire these in).
export { createOperatorRegistry, defaultOperators, noopOperator, triggerDagRunOperator } from "@svc/operators";
