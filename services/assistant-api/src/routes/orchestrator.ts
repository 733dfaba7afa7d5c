import { Router } from "express";
import { paramsObjectSchema } from "@svc/dags";
import type { EngineApi } from "@svc/engine";
import { loadCatalogue } from "@svc/flows";
import { parseInput } from "@svc/http";
import type { AssistantDeps } from "../deps";
import { liveCounts } from "../health";
import { observeDag } from "../observe";
import { ObserveQuerySchema } from "../schemas";

async function lastRunState(engine: Pick<EngineApi, "listDagRuns">, dagId: string): Promise<string | null> {
  const runs = await engine.listDagRuns({ dag_id: dagId, order_by: "-logical_date", limit: 1 });
  return runs.dag_runs[0]?.state ?? null;
}

/** POST /orchestrator/observe, GET /orchestrator/status, GET /orchestrator/dags. */
export function orchestratorRoutes(d: AssistantDeps): Router {
  const r = Router();

  r.post("/orchestrator/observe", async (req, res) => {
    const q = parseInput(ObserveQuerySchema, req.query, "query");
    res.json(await observeDag(d.engine, d.config.workflowUiUrl, q.dag_id, q.run_id, d.logger));
  });

  r.get("/orchestrator/status", async (_req, res) => {
    const [dags, byStatus, live] = await Promise.all([d.engine.listDags({ limit: 1 }), d.store.countByStatus(), liveCounts(d.db)]);
    const m = d.config.model;
    // Booleans only: whether a provider is configured, never the key itself.
    res.json({
      // Degraded: intents are accepted but wait until an orchestrator runs.
      status: (live.orchestrator ?? 0) > 0 ? "ok" : "degraded",
      model_providers: { openai_compatible: Boolean(m.apiKey), local_model: Boolean(m.useLocalModel && m.localModelUrl) },
      model: d.router.model,
      router_mode: d.router.mode,
      dags: dags.total_entries,
      flows: { total: Object.values(byStatus).reduce((a, b) => a + b, 0), by_status: byStatus },
    });
  });

  r.get("/orchestrator/dags", async (_req, res) => {
    const catalogue = await loadCatalogue(d.engine);
    const dags = await Promise.all(
      catalogue.map(async (c) => ({
        dag_id: c.dag_id,
        description: c.description,
        tags: c.tags,
        params: paramsObjectSchema(c.definition),
        required_params: c.definition.required_params,
        is_paused: c.is_paused,
        is_active: c.is_active,
        has_import_errors: c.has_import_errors,
        requires_approval: c.approval_reason !== null,
        last_run_state: await lastRunState(d.engine, c.dag_id),
        examples: c.definition.examples,
      })),
    );
    res.json({ dags, total_entries: dags.length });
  });

  return r;
}
