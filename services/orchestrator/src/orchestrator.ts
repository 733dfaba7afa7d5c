import { Worker, type Job } from "bullmq";
import type { SvcConfig } from "@svc/config";
import { createNotificationFeed, DAG_CHANGE_CHANNEL, type Db, type FlowRow } from "@svc/db";
import { listenedDefinitions, newInstanceId, startHeartbeat, type EngineApi } from "@svc/engine";
import {
  createCatalogueReadiness,
  createCloudPlanner,
  createFlowRouter,
  createFlowStore,
  createServiceEngine,
  processFlow,
  type FlowRouter,
  type PlanHosts,
  type ProcessResult,
} from "@svc/flows";
import { createCachedHostList, type Weigher } from "@svc/hosts";
import type { Logger } from "@svc/logger";
import { createQueues, createRedis, intentJobSchema, QUEUE_NAMES, stallOptions, type Queues } from "@svc/queue";
import { startSweep } from "./sweep";

/** What the orchestrator needs; tests pass their own config, router and timings. */
export interface OrchestratorDeps {
  db: Db;
  config: SvcConfig;
  logger: Logger;
  /** Default: from config.model (LLM when configured, offline otherwise). */
  router?: FlowRouter;
  /** Flows processed at once by this instance. */
  concurrency?: number;
  /** How often lost jobs are re-enqueued and finished runs settle their flows. */
  sweepIntervalMs?: number;
  /** A pending/planning/approved flow untouched this long has lost its job. */
  resumeAfterMs?: number;
  heartbeatMs?: number;
  /** The workers' placement weigher (SVC_PLACEMENT_WEIGHER, read at boot), for the plan's placement preview. */
  weigher?: Weigher;
  /** How long an intent nothing matched waits for the scheduler's first DAG-folder pass before it is refused (default 30 s). */
  catalogueWaitMs?: number;
  /** Default: the inventory in `db`, read at most every 5 s. */
  hosts?: PlanHosts;
}

/** A running orchestrator: consumes `intents` jobs and keeps flows moving. */
export interface Orchestrator {
  readonly instanceId: string;
  readonly router: FlowRouter;
  readonly engine: EngineApi;
  close(): Promise<void>;
}

/** A job's copy of a flow row, its dates revived (the queue carries them as ISO strings). */
function flowFromJob(flow: Record<string, unknown>): FlowRow {
  return { ...flow, created_at: new Date(String(flow.created_at)), updated_at: new Date(String(flow.updated_at)) } as FlowRow;
}

/** Start consuming the `intents` queue: each job runs the flow's remaining phases (see processFlow). */
export function createOrchestrator(deps: OrchestratorDeps): Orchestrator {
  const { config, db } = deps;
  const log = deps.logger;
  const instanceId = newInstanceId("orchestrator");
  const queues: Queues = createQueues({ url: config.redisUrl, prefix: config.redisPrefix });
  const engine = createServiceEngine({ db, queues, config, logger: log });
  const store = createFlowStore(db);
  const router = deps.router ?? createFlowRouter(config.model, log);
  const inventory = deps.hosts ?? createCachedHostList(db);
  const hosts: PlanHosts = {
    list: () => inventory.list(),
    weigher: deps.hosts?.weigher ?? deps.weigher,
    maxProbeAgeMs: deps.hosts?.maxProbeAgeMs,
    cloudApproval: deps.hosts?.cloudApproval ?? config.placement.cloudApproval,
    // A cloud VM's size, image and price from its provider (read-only calls; the secrets file read when a plan needs it).
    cloudPlan: deps.hosts?.cloudPlan ?? createCloudPlanner(config),
  };
  // The catalogue every intent lists, kept while Postgres notifies no DAG change.
  const dagChanges = createNotificationFeed(config.databaseUrl, DAG_CHANGE_CHANNEL, {
    applicationName: "svc-orchestrator-listen",
    onError: (e) => log.warn({ err: String(e) }, "DAG change feed lost; the catalogue is read on every intent until it is back"),
    onBack: () => log.info("DAG change feed back; the catalogue is kept between changes again"),
  });
  const catalogue = listenedDefinitions(engine, dagChanges);
  const pipelineEngine = { ...engine, listDagDefinitions: catalogue.listDagDefinitions };
  const catalogueReady = createCatalogueReadiness(engine, { waitMs: deps.catalogueWaitMs });
  const pipeline = { store, engine: pipelineEngine, router, logger: log, workflowUiUrl: config.workflowUiUrl, hosts, catalogueReady };

  const handle = async (job: Job): Promise<ProcessResult> => {
    const { flowId, action, flow } = intentJobSchema.parse(job.data);
    log.info({ flowId, action, jobId: job.id, attempt: job.attemptsMade + 1 }, "intent job");
    // plan and approve both mean "do what the flow still needs"; Postgres says what that is (a new
    // flow's first plan job carries the flow as inserted, which processFlow's guarded writes check).
    // Cancel is decided by the API in Postgres; a cancel job only reports the flow's state.
    if (action === "cancel") {
      const row = await store.require(flowId);
      return { flowId, status: row.status };
    }
    return processFlow(pipeline, flowId, flow ? flowFromJob(flow) : undefined);
  };

  const connection = createRedis(config.redisUrl);
  const worker = new Worker(QUEUE_NAMES.intents, handle, {
    connection: connection,
    prefix: config.redisPrefix,
    concurrency: deps.concurrency ?? 8,
    // An intent job taken by an orchestrator that died comes back in seconds (SVC_WORKER_LOCK_MS),
    // before the sweep's resume (resumeAfterMs, 30 s).
    ...stallOptions(config.worker.lockMs),
  });
  worker.on("error", (e) => log.warn({ err: String(e) }, "intents queue error"));
  worker.on("failed", (job, e) => log.error({ jobId: job?.id, err: String(e) }, "intent job failed"));

  const heartbeat = startHeartbeat(
    db,
    "orchestrator",
    instanceId,
    deps.heartbeatMs ?? 5000,
    (e) => log.warn({ err: String(e) }, "heartbeat failed"),
    () => ({ router_mode: router.mode }),
  );
  const sweep = startSweep({ store, engine, queues, logger: log, intervalMs: deps.sweepIntervalMs ?? 2000, resumeAfterMs: deps.resumeAfterMs ?? 30_000 });
  log.info({ instanceId, routerMode: router.mode }, "orchestrator started");

  return {
    instanceId,
    router,
    engine,
    async close() {
      await sweep.stop();
      await worker.close();
      await heartbeat.stop();
      await dagChanges.close();
      await queues.close();
      connection.disconnect();
    },
  };
}
