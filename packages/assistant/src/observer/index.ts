// The observer's light entry (`@svc/assistant/observer`): pure functions over runs and task
// instances, for consumers that do not load the router's language models.
export { observeRun } from "./observe-run";
export type { ObserveInput, Observation, Concern, ObservedRun, ObservedTask } from "./observe-run";
export { dagConcerns, runConcerns } from "./concerns";
export type { Findings } from "./concerns";
