import { ZodError } from "zod";
import { isSvcError, ParamsInvalidError } from "@svc/errors";

/** A failure the calling model can act on; `field` names the input at fault. */
export class ToolInputError extends Error {
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(field && !message.startsWith(`${field}:`) ? `${field}: ${message}` : message);
    this.name = "ToolInputError";
  }
}

/** Longest error text a tool returns: enough to act on, never a flood. */
const MAX_ERROR_CHARS = 600;

/**
 * The text of a tool error: names the field or the reason. Typed errors keep their message
 * (they never carry secrets); anything unexpected is reported by kind only and logged in full.
 */
export function describeToolError(e: unknown, fieldPrefix = "conf"): { text: string; expected: boolean } {
  let text: string;
  let expected = true;
  if (e instanceof ParamsInvalidError) {
    text = `invalid ${fieldPrefix}: ${e.fields.map((f) => `${fieldPrefix}.${f.field}: ${f.message}`).join("; ")}`;
  } else if (e instanceof ZodError) {
    text = e.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; ");
  } else if (e instanceof ToolInputError || isSvcError(e)) {
    text = e.message;
  } else {
    expected = false;
    text = `internal error (${e instanceof Error ? e.name : typeof e}); the server log has the details`;
  }
  return { text: text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}…` : text, expected };
}
