export { evaluateTriggerRule, countUpstream, successWaitsForOthers } from "./trigger-rules";
export type { UpstreamCounts, RuleVerdict } from "./trigger-rules";
export { decideRun, runStateOf, isFinished } from "./decide";
export type { TiView, RunDecision } from "./decide";
export { canRetry, retryDelayMs, decideFailure } from "./retry";
export type { FailureDecision } from "./retry";
