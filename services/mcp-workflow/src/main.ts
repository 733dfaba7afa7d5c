import { assertTrustedFiles } from "@svc/config";
import { dagSettingsFromConfig, openEngineApi } from "@svc/engine";
import { createHostInventory } from "@svc/hosts";
import { mainOf } from "@svc/mcp";
import { defaultOperators } from "@svc/operators";
import { createWorkflowServer, WORKFLOW_SERVER_NAME } from "./server";
import { createVmAccess } from "./vm-access";

/** svc-mcp-workflow: the workflow tool server over stdio (default) or Streamable HTTP (--http [--port N]). */
mainOf(
  {
    name: WORKFLOW_SERVER_NAME,
    defaultPort: (s) => s.workflowPort,
    async open({ config, settings, logger }) {
      assertTrustedFiles(config);
      const { db, queues, api } = openEngineApi(config, logger, "mcp-workflow", defaultOperators());
      const vms = createVmAccess(config);
      const deps = {
        api,
        role: config.mcpAccess.workflowRole,
        logger,
        vms,
        dagSettings: dagSettingsFromConfig(config),
        hosts: createHostInventory(db),
        weigher: config.placement.weigher,
      };
      logger.info({ role: deps.role, readOnly: settings.readOnly }, "tool server role");
      return {
        factory: () => createWorkflowServer(deps, { readOnly: settings.readOnly }),
        async close() {
          await vms.close();
          await queues.close();
          await db.destroy();
        },
      };
    },
  },
  process.env,
);
