export { TRIGGER_RULES } from "./types";
export type { TriggerRule, TaskDefinition, DagDefinition, ParamSchema, DagFileProblem, DagFileResult, OperatorCatalog } from "./types";
