// The ssh operator's arguments: zod and the shared field schemas only, so the DAG validator's catalogue loads no SSH code.
import { z } from "zod";
import { hostPath, inventoryHost } from "./schemas";

export const args = z.object({
  /** The command as argv words; never a shell string (use ["sh", "-c", script] deliberately). */
  argv: z.array(z.string().refine((s) => !s.includes("\0"), "argument must not contain NUL")).min(1),
  /** Needs root: sudo -n in non-root mode. */
  root: z.boolean().default(false),
  env: z
    .record(
      z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/),
      z.string().refine((s) => !s.includes("\0")),
    )
    .optional(),
  cwd: hostPath.optional(),
  stdin: z.string().optional(),
  timeout_s: z.coerce.number().min(1).max(86_400).default(3600),
  /** Exit codes that count as success. */
  ok_codes: z.array(z.number().int()).default([0]),
  /** Run it on this host of the inventory (default: local, the configured host). */
  host: inventoryHost.nullish(),
});
export type Args = z.infer<typeof args>;
