import { randomBytes } from "node:crypto";

const hex12 = () => randomBytes(6).toString("hex");

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
