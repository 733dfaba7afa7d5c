import type { ParamSchema } from "@svc/dags";
import type { CloudTarget } from "./params/cloud-target";

/** What the router needs to know about one DAG (derivable from a DagDefinition). */
export interface RouterCatalogEntry {
  dag_id: string;
  description: string | null;
  tags: string[];
  examples: string[];
  /** JSON Schema properties, each may carry a default. */
  params: Record<string, ParamSchema>;
  required_params: string[];
}

/** One ranked DAG. */
export interface RouteCandidate {
  dag_id: string;
  score: number;
}

/** Why a request was not routed. */
export interface RouteRefusal {
  kind: "unsafe" | "out_of_scope" | "low_confidence";
  message: string;
  /**
   * Set when the request asks about a run that already happened ("why did my last identity
   * deployment fail?"): nothing is started; a caller can answer from that workflow's runs (observe).
   */
  about_run?: { dag_id: string | null };
  /**
   * Set when the request asks how much room the hypervisor hosts have ("which host has the most
   * free memory?"): nothing is started; a caller answers from the host inventory (chat, svc-hosts).
   */
  about_hosts?: boolean;
  /**
   * Set with about_hosts when the question asks where a VM of a given size would fit ("would a
   * 32 GB, 8 vCPU vm fit anywhere?"): the size it states, for the caller to judge on each host.
   */
  about_fit?: { memory_mb?: number; cpus?: number; disk_gb?: number };
}

/**
 * ready: DAG and params complete and valid. needs_input: the DAG is clear but a required value is
 * missing or a value the user gave breaks a rule (see input). rejected: out of scope, unsafe, or an
 * operation the catalogue does not have (see refused).
 */
export type RouteStatus = "ready" | "needs_input" | "rejected";

/** What a needs_input route asks for: the field, the rule, the question, and what was given. */
export interface InputRequest {
  field: string;
  rule: string;
  question: string;
  /** The value as the user typed it, when one was given and broke the rule. */
  given?: string;
}

/** Outcome of routing one intent. */
export interface RouteResult {
  status: RouteStatus;
  /** needs_input: the question to ask (the first of input). */
  question?: string;
  /** needs_input: every field to ask about. */
  input?: InputRequest[];
  dag_id: string | null;
  /** 0..1: margin over the runner-up scaled by the absolute score. */
  confidence: number;
  params: Record<string, unknown>;
  candidates: RouteCandidate[];
  reason: string;
  refused?: RouteRefusal;
  mode: "offline" | "llm";
  warnings: string[];
  /** Where the request puts its VMs besides "on host X" (a provider, a region, words that may name a host): the caller matches it against the inventory. */
  target?: CloudTarget;
}

/** Anything that routes an intent (offline or model-assisted). */
export interface IntentRouter {
  route(intent: string): Promise<RouteResult>;
}
