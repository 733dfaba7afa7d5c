import type { NotificationFeed } from "@svc/db";
import type { DagDefinitionEntry, ListDagDefinitionsOptions } from "./dags";
import type { EngineApi } from "./engine-api";

type Lister = Pick<EngineApi, "listDagDefinitions">;

/**
 * `listDagDefinitions` kept in memory while Postgres says nothing changed: the list is read again
 * after a notification of a DAG change (`DAG_CHANGE_CHANNEL`, sent at commit by triggers on `dag`
 * and `import_error`), and always while the feed is not listening. A read during which a change
 * was notified is not kept. Every intent lists the catalogue; DAGs change at deploys and toggles.
 */
export function listenedDefinitions(api: Lister, feed: Pick<NotificationFeed, "generation" | "listening">): Lister {
  const kept = new Map<string, { generation: number; entries: DagDefinitionEntry[] }>();
  return {
    async listDagDefinitions(opts: ListDagDefinitionsOptions = {}) {
      const key = String(opts.onlyActive ?? true);
      const generation = feed.generation();
      const hit = kept.get(key);
      // The same (frozen) list while it holds: callers may derive from it once per list (loadCatalogue does).
      if (feed.listening() && hit?.generation === generation) return hit.entries;
      const entries = Object.freeze(await api.listDagDefinitions(opts)) as DagDefinitionEntry[];
      if (feed.listening() && feed.generation() === generation) kept.set(key, { generation, entries });
      else kept.delete(key);
      return entries;
    },
  };
}
