import type { Request, Response } from "express";
import { z } from "zod";
import type { EngineApi } from "@svc/engine";

type AnyObject = z.ZodObject<z.ZodRawShape>;

/** One documented response of an operation. */
export interface ResponseSpec {
  description: string;
  /** JSON body schema (a response component from @svc/engine, or inline). */
  schema?: z.ZodType;
  /** Extra content types, e.g. text/plain for logs and sources. */
  text?: boolean;
}

export interface HandlerInput<P extends AnyObject, Q extends AnyObject, B extends z.ZodType> {
  params: z.output<P>;
  query: z.output<Q>;
  body: z.output<B>;
  api: EngineApi;
  req: Request;
  res: Response;
}

/**
 * An operation of the REST API: its zod schemas validate the request and generate the OpenAPI
 * document, so the two cannot disagree. The handler returns the JSON body (or answers itself).
 */
export interface RouteDef<P extends AnyObject = AnyObject, Q extends AnyObject = AnyObject, B extends z.ZodType = z.ZodType> {
  method: "get" | "post" | "patch" | "delete";
  /** OpenAPI path under /api/v1, e.g. /dags/{dag_id}. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  /** No authentication (health, version). */
  public?: boolean;
  params?: P;
  query?: Q;
  body?: B;
  /** Status of a successful answer (default 200). */
  status?: number;
  responses: Record<number, ResponseSpec>;
  handler(input: HandlerInput<P, Q, B>): Promise<unknown>;
}

/** Type-checks a route definition (inference of params/query/body) and erases it for the route table. */
export function defineRoute<P extends AnyObject, Q extends AnyObject, B extends z.ZodType>(def: RouteDef<P, Q, B>): RouteDef {
  return def;
}

/** /dags/{dag_id} → /dags/:dag_id */
export function toExpressPath(openApiPath: string): string {
  return openApiPath.replace(/\{([A-Za-z0-9_]+)\}/g, ":$1");
}

/** Path parameters shared by several routers. */
export const dagIdParams = z.object({ dag_id: z.string().min(1) });
export const runParams = dagIdParams.extend({ dag_run_id: z.string().min(1) });
export const taskParams = runParams.extend({ task_id: z.string().min(1) });

/** Standard error responses, documented on every operation that can give them. */
export const errors = {
  400: { description: "Client specified an invalid argument." },
  401: { description: "Request not authenticated due to missing, invalid, authentication info." },
  403: { description: "Client does not have sufficient permission." },
  404: { description: "A specified resource is not found." },
  409: { description: "An existing resource conflicts with the request." },
} satisfies Record<number, ResponseSpec>;
