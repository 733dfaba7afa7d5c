import { loadEvalCatalog } from "./packages/assistant/src/eval/load-catalog";
import { createOfflineRouter } from "./packages/assistant/src/router/offline-router";
import { createChatFilter } from "./packages/assistant/src/router/chat-clauses";
(async () => {
  const c = await loadEvalCatalog();
  const r = createOfflineRouter(c.entries);
  const f = createChatFilter(c.entries);
  for (const s of process.argv.slice(2)) { console.log(JSON.stringify(f(s))); const x = r.route(s); console.log(x.dag_id, x.status, JSON.stringify(x.params), x.reason, JSON.stringify(x.candidates)); }
})();
