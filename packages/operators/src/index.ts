export type { Operator, OperatorContext, LogStream } from "./types";
export { createOperatorRegistry, checkLiteralArgs } from "./registry";
export type { OperatorRegistry } from "./registry";
export { noopOperator, sleepOperator, failOperator, shellOperator, BASIC_OPERATORS } from "./basic";
export { defaultOperators } from "./all";
export { createHostOperators, hostOperatorSettings, defaultHostExecutor, sshReuseEnv } from "./host";
export type { HostOperatorDeps, HostOperatorSettings, Finding } from "./host";
