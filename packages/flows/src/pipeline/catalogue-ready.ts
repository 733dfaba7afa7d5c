import type { EngineApi } from "@svc/engine";

/**
 * Whether the DAG folder has been processed (engine health's dag_processor), waiting up to
 * `waitMs` for it. A stack just started on a fresh database answers before its scheduler's first
 * DAG-folder pass has committed: an intent routed then would find no workflow and be refused.
 * Once seen processed it stays so (the workflows stay in Postgres), so later calls cost nothing.
 */
export function createCatalogueReadiness(engine: Pick<EngineApi, "health">, o: { waitMs?: number; pollMs?: number } = {}): () => Promise<boolean> {
  let seen = false;
  const waitMs = o.waitMs ?? 30_000;
  const pollMs = o.pollMs ?? 250;
  const processed = async () => {
    try {
      return (await engine.health()).dag_processor.status === "healthy";
    } catch {
      return false;
    }
  };
  return async () => {
    if (seen) return true;
    const deadline = Date.now() + waitMs;
    for (;;) {
      if (await processed()) return (seen = true);
      if (Date.now() >= deadline) return false;
      await new Promise((r) => setTimeout(r, Math.min(pollMs, Math.max(0, deadline - Date.now()))));
    }
  };
}
