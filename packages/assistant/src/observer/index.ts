// The observer's light entry (`@svc/assistant/observer`): pure functions over runs and task
// instances, for consumers that do not load the router's language models.
export { dagConcerns, runConcerns } from "./concerns";
