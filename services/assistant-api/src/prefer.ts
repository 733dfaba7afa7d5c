import type { Request, Response } from "express";

/**
 * Whether the request asks to be answered once its work is accepted, not done (RFC 7240
 * `Prefer: respond-async`). Preferences are comma-separated tokens, case-insensitive, with optional
 * values and parameters; any other preference is ignored, as the RFC asks.
 */
export function prefersAsync(req: Pick<Request, "get">): boolean {
  const header = req.get("Prefer");
  if (!header) return false;
  return header.split(",").some((p) => p.split(/[=;]/, 1)[0]!.trim().toLowerCase() === "respond-async");
}

/** Say the preference was applied, and where the accepted flow can be followed. */
export function appliedAsync(res: Response, statusEndpoint: string): void {
  res.set("Preference-Applied", "respond-async");
  res.set("Location", statusEndpoint);
}
