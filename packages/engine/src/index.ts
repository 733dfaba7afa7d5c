// Public API of @svc/engine. Each area appends its own export lines.
export { createQueueNotifier, nullNotifier } from "./notifier";
export type { Notifier } from "./notifier";
export { decideRun, evaluateTriggerRule, countUpstream, canRetry, retryDelayMs, runStateOf, isFinished } from "./core";
export type { TiView, RunDecision, RuleVerdict, UpstreamCounts } from "./core";
export {
  evaluateRun, startQueuedRuns, executeTry, claimTry, commitTry, reconcile, reapZombies, startWorker, startScheduler,
  startEngineRuntime, newInstanceId, syncCronSchedulers, dagSettingsFromConfig, beat, startHeartbeat, bootDatabase, onShutdown,
} from "./runtime";
export type { RuntimeDeps, ReconcileReport, EngineWorker, EngineScheduler, SchedulerOptions, EngineRuntime, EngineRuntimeOptions } from "./runtime";
