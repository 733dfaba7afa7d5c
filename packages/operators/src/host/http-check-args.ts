// http_check's arguments: zod only, so the DAG validator's catalogue loads no HTTP client code.
import { z } from "zod";

export const args = z.object({
  url: z
    .string()
    .url()
    .refine((u) => /^https?:\/\//i.test(u), "url must be http:// or https://"),
  method: z.enum(["GET", "HEAD"]).default("GET"),
  expected_status: z.union([z.coerce.number().int().min(100).max(599), z.array(z.coerce.number().int().min(100).max(599)).min(1)]).default(200),
  /** The body must contain this text (GET only). */
  contains: z.string().optional(),
  timeout_s: z.coerce.number().min(0.1).max(300).default(10),
  /** Extra attempts after the first, retry_interval_s apart (services that are still starting). */
  retries: z.coerce.number().int().min(0).max(1000).default(0),
  retry_interval_s: z.coerce.number().min(0).max(600).default(2),
});
export type Args = z.infer<typeof args>;
