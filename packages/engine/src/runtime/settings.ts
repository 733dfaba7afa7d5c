// The mapping lives with the configuration; re-exported for the engine's callers.
export { dagSettingsFromConfig } from "@svc/config";
