import type { OperatorCatalog } from "@svc/dags";
import type { Db } from "@svc/db";
import type { Logger } from "@svc/logger";
import type { Notifier } from "../notifier";
import type { CloudApproval } from "./cloud-approval";

/** What the engine API needs; the REST API, the CLI, the orchestrator and the MCP servers pass their own. */
export interface EngineApiDeps {
  db: Db;
  notifier: Notifier;
  /** The DAG folder (for source files and rescans). */
  dagsDir: string;
  /** Operators known to the DAG validator (reserialize). */
  catalog: OperatorCatalog;
  /** Platform settings that param defaults may reference. */
  settings?: Record<string, string>;
  /** SVC_CLOUD_APPROVAL: `op` (the default) refuses a VM-creating run on a cloud host to a caller below op. */
  cloudApproval?: CloudApproval;
  /** Cap for `limit` (Airflow's maximum_page_limit, default 100). */
  maxPageLimit?: number;
  logger?: Logger;
}

/** Deps with defaults resolved; shared by the API's modules. */
export interface ApiContext extends EngineApiDeps {
  maxPageLimit: number;
  settings: Record<string, string>;
  logger: Logger;
  cloudApproval: CloudApproval;
}
