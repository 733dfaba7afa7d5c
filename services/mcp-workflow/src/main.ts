import { assertTrustedFiles } from "@svc/config";
import { dagSettingsFromConfig, openEngineApi } from "@svc/engine";
import { createHostInventory, placementWeigher } from "@svc/hosts";
import { mainOf } from "@svc/mcp";
import { createWorkflowServer, WORKFLOW_SERVER_NAME } from "./server";
import { createVmAccess } from "./vm-access";

/** svc-mcp-workflow: the workflow tool server over stdio (default) or Streamable HTTP (--http [--port N]). */
mainOf({
  name: WORKFLOW_SERVER_NAME,
  defaultPort: (s) => s.workflowPort,
  async open({ config, settings, logger }) {
    assertTrustedFiles(config);
    const { db, queues, api } = openEngineApi(config, logger, "mcp-workflow");
    const vms = createVmAccess(config, process.env);
    const deps = { api, logger, vms, dagSettings: dagSettingsFromConfig(config), hosts: createHostInventory(db), weigher: placementWeigher(process.env) };
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
