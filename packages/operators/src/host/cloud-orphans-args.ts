import { z } from "zod";

/** cloud_orphans takes no arguments: it reads every cloud host of the inventory. */
export const args = z.object({}).strict();
