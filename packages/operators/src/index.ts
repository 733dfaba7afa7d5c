export type { OperatorContext } from "./types";
export { triggerDagRunOperator } from "./trigger-dag-run";
export { createOperatorRegistry } from "./registry";
export { noopOperator } from "./basic";
export { defaultOperators } from "./all";
export { hostOperatorSettings, sshReuseEnv } from "./host";
