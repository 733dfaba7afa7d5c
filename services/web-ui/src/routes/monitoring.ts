import { HealthInfoSchema, VersionInfoSchema } from "@svc/engine";
import { defineRoute } from "./route";

/** Health and version: no authentication, as in Airflow (load balancers and monitors call them). */
export const monitoringRoutes = [
  defineRoute({
    method: "get",
    path: "/health",
    operationId: "get_health",
    summary: "Get instance status (metadatabase, scheduler heartbeat)",
    tag: "Monitoring",
    public: true,
    responses: { 200: { description: "Success.", schema: HealthInfoSchema } },
    async handler({ api }) {
      return api.health();
    },
  }),
  defineRoute({
    method: "get",
    path: "/version",
    operationId: "get_version",
    summary: "Get version information",
    tag: "Monitoring",
    public: true,
    responses: { 200: { description: "Success.", schema: VersionInfoSchema } },
    async handler({ api }) {
      return api.version();
    },
  }),
];
