// @svc/engine/runtime: what the worker and scheduler processes start, without the engine API's callers' code.
export { startEngineRuntime } from "./start-runtime";
export { bootDatabase, onShutdown } from "./boot";
