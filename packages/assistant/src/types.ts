import type { ParamSchema } from "@svc/dags";

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
}

/** Outcome of routing one intent. */
export interface RouteResult {
  dag_id: string | null;
  /** 0..1: margin over the runner-up scaled by the absolute score. */
  confidence: number;
  params: Record<string, unknown>;
  candidates: RouteCandidate[];
  reason: string;
  refused?: RouteRefusal;
  mode: "offline" | "llm";
  warnings: string[];
}

/** Anything that routes an intent (offline or model-assisted). */
export interface IntentRouter {
  route(intent: string): Promise<RouteResult>;
}
