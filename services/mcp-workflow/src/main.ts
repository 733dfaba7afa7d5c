import { createDb } from "@svc/db";
import { createEngineApi, createQueueNotifier, dagSettingsFromConfig } from "@svc/engine";
import { mainOf } from "@svc/mcp";
import { defaultOperators } from "@svc/operators";
import { createQueues } from "@svc/queue";
import { createWorkflowServer, WORKFLOW_SERVER_NAME } from "./server";
import { createVmAccess } from "./vm-access";

/** svc-mcp-workflow: the workflow tool server over stdio (default) or Streamable HTTP (--http [--port N]). */
mainOf({
  name: WORKFLOW_SERVER_NAME,
  defaultPort: (s) => s.workflowPort,
  async open({ config, settings, logger }) {
    const db = createDb(config.databaseUrl, { applicationName: "mcp-workflow" });
    const queues = createQueues({ url: config.redisUrl, prefix: config.redisPrefix });
    const notifier = createQueueNotifier(queues, (e) => logger.warn({ err: String(e) }, "scheduler notification failed; reconciliation will catch up"));
    const api = createEngineApi({
      db,
      notifier,
      dagsDir: config.dagsDir,
      catalog: defaultOperators(),
      settings: dagSettingsFromConfig(config),
      maxPageLimit: config.http.maxPageLimit,
      logger,
    });
    const vms = createVmAccess(config, process.env);
    const deps = { api, logger, vms, dagSettings: dagSettingsFromConfig(config) };
    return {
      factory: () => createWorkflowServer(deps, { readOnly: settings.readOnly }),
      async close() {
        await vms.close();
        await queues.close();
        await db.destroy();
      },
    };
  },
});
