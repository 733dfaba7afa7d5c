import { randomFillSync } from "node:crypto";

// Ids are cut from a pool of random bytes filled 256 ids at a time: one call into the CSPRNG (and
// its fork check) per 256 ids rather than per id, which every intent paid twice.
const POOL = Buffer.alloc(6 * 256);
let offset = POOL.length;
const hex12 = (): string => {
  if (offset === POOL.length) {
    randomFillSync(POOL);
    offset = 0;
  }
  return POOL.toString("hex", offset, (offset += 6));
};

/** A new flow id: `flow-<12 hex>`. */
export const newFlowId = (): string => `flow-${hex12()}`;

/** A new execution id: `exec-<12 hex>`. */
export const newExecutionId = (): string => `exec-${hex12()}`;

/** The flow id form, for validating path parameters. */
export const FLOW_ID_PATTERN = /^flow-[0-9a-f]{12}$/;

/**
 * The DAG run id a flow's execution creates. Deterministic, so a re-delivered job finds the run it
 * already created instead of creating a second one.
 */
export const runIdForExecution = (executionId: string): string => `flow__${executionId}`;
