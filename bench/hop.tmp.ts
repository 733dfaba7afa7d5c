import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "@svc/config";
import { createEngineApi, createQueueNotifier, dagSettingsFromConfig, startEngineRuntime, syncDagFolder } from "@svc/engine";
import { silentLogger } from "@svc/logger";
import { defaultOperators } from "@svc/operators";
import { createQueues } from "@svc/queue";
import { createTestDb, createTestRedis, waitFor } from "@svc/testing";
async function main() {
  const tdb = await createTestDb("hop"); const redis = createTestRedis("hop");
  const dagsDir = mkdtempSync(path.join(os.tmpdir(), "svc-hop-"));
  writeFileSync(path.join(dagsDir, "chain.yaml"), `dag_id: chain\ntasks:\n${Array.from({ length: 20 }, (_, i) => `  - {task_id: t${i}, operator: noop${i ? `, depends_on: [t${i - 1}]` : ""}}`).join("\n")}\n`);
  const config = loadConfig({ DATABASE_URL: tdb.url, REDIS_URL: redis.url, SVC_REDIS_PREFIX: redis.prefix, SVC_DAGS_DIR: dagsDir, SVC_LOG_LEVEL: "silent" });
  const queues = createQueues({ url: redis.url, prefix: redis.prefix }); const notifier = createQueueNotifier(queues); const catalog = defaultOperators();
  const api = createEngineApi({ db: tdb.db, notifier, dagsDir, catalog, settings: dagSettingsFromConfig(config) });
  await syncDagFolder({ db: tdb.db, dagsDir, catalog, settings: dagSettingsFromConfig(config) }); await api.setPaused("chain", false);
  const rts = [startEngineRuntime({ db: tdb.db, config, logger: silentLogger(), worker: false })];
  for (let i = 0; i < 4; i++) rts.push(startEngineRuntime({ db: tdb.db, config, logger: silentLogger(), scheduler: false }));
  await waitFor(() => rts[0]!.scheduler!.isLeader(), { what: "leader" });
  for (let r = 0; r < 4; r++) { if (r === 3) process.env.SVC_TRACE = "1"; const run = await api.triggerDagRun("chain", { runId: `c${r}` });
    await waitFor(async () => { const x = await tdb.db.selectFrom("dag_run").select("state").where("run_id", "=", run.dag_run_id).executeTakeFirst(); return x?.state === "success" ? x : undefined; }, { timeoutMs: 60000, intervalMs: 20 }); }
  delete process.env.SVC_TRACE;
  for (const rt of rts) await rt.stop(); await queues.close(); await redis.cleanup(); await tdb.drop(); process.exit(0);
}
void main();
