// Public API of @svc/engine. Each area appends its own export lines.
export { createQueueNotifier, nullNotifier } from "./notifier";
export type { Notifier } from "./notifier";
