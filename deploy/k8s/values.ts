import { z } from "zod";

const name = z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, "a Kubernetes object name");
const resources = z
  .object({
    cpu: z.string().regex(/^\d+(\.\d+)?m?$/),
    memory: z.string().regex(/^\d+(Ki|Mi|Gi)$/),
    cpuLimit: z
      .string()
      .regex(/^\d+(\.\d+)?m?$/)
      .optional(),
    memoryLimit: z.string().regex(/^\d+(Ki|Mi|Gi)$/),
  })
  .strict();
const component = (replicas: number, r: z.infer<typeof resources>) =>
  z.object({ replicas: z.number().int().min(0).max(100).default(replicas), resources: resources.default(r) }).strict();

/**
 * What an operator sets for a deployment (deploy/k8s/values/*.json). Secrets are never values:
 * only the names of Secrets that already exist in the namespace (made by the operator, or by an
 * external secrets operator), one per concern as in compose, so each service sees only its own.
 */
export const valuesSchema = z
  .object({
    namespace: name.default("svc"),
    image: z.string().min(1).default("svc:latest"),
    imagePullPolicy: z.enum(["Always", "IfNotPresent", "Never"]).default("IfNotPresent"),
    redis: z
      .object({
        /** Sentinel: every sentinel host:port and the master name; REDIS_URL (secret) then only gives the password and database. */
        sentinels: z.array(z.string().regex(/^[A-Za-z0-9.-]+:\d{1,5}$/)).default([]),
        sentinelName: z
          .string()
          .regex(/^[A-Za-z0-9_.-]{1,64}$/)
          .optional(),
        prefix: z
          .string()
          .regex(/^[A-Za-z0-9_.-]+$/)
          .default("svc"),
        /** host:port of Redis without Sentinel, for KEDA's queue-depth trigger only (the services read REDIS_URL). */
        address: z
          .string()
          .regex(/^[A-Za-z0-9.-]+:\d{1,5}$/)
          .optional(),
      })
      .strict()
      .refine((r) => r.sentinels.length > 0 === !!r.sentinelName, { message: "sentinels and sentinelName go together" })
      .default({ sentinels: [], prefix: "svc" }),
    secrets: z
      .object({
        /** Keys DATABASE_URL (every service). */
        database: name.default("svc-database"),
        /** Key REDIS_URL, and SVC_REDIS_SENTINEL_PASSWORD when the sentinels need one (every service). */
        redis: name.default("svc-redis"),
        /** Keys SVC_ADMIN_PASSWORD, SVC_API_TOKEN (web UI, assistant API). */
        auth: name.default("svc-auth"),
        /** Key SVC_MCP_ASSISTANT_TOKEN: the assistant tool server's own token, which the assistant API accepts (with mcp.enabled). */
        mcpAssistant: name.default("svc-mcp-assistant"),
        /** Key MODEL_PROVIDER_API_KEY (orchestrator, assistant API). */
        model: name.default("svc-model"),
        /** Files id_key and known_hosts: the SSH key the workers reach the hypervisor hosts with. */
        ssh: name.default("svc-ssh"),
        /** File vault-password: the ansible-vault password of the secrets file on the host. */
        vault: name.default("svc-vault"),
      })
      .strict()
      .default({ database: "svc-database", redis: "svc-redis", auth: "svc-auth", mcpAssistant: "svc-mcp-assistant", model: "svc-model", ssh: "svc-ssh", vault: "svc-vault" }),
    hypervisor: z
      .object({
        host: z.string().min(1),
        port: z.number().int().min(1).max(65535).default(22),
        user: z.string().regex(/^[a-z_][a-z0-9_-]*$/),
        /** Uid/gid the workers run as (owner of the SSH key inside the pod). */
        uid: z.number().int().min(1).default(10001),
        inventoryDir: z.string().startsWith("/").default("/var/lib/svc/inventory"),
      })
      .strict(),
    settings: z.record(z.string().regex(/^SVC_[A-Z0-9_]+$/), z.string()).default({}),
    scheduler: component(1, { cpu: "200m", memory: "256Mi", memoryLimit: "512Mi" }).default({ replicas: 1, resources: { cpu: "200m", memory: "256Mi", memoryLimit: "512Mi" } }),
    worker: component(2, { cpu: "500m", memory: "384Mi", memoryLimit: "1Gi" })
      .extend({
        concurrency: z.number().int().min(1).max(256).default(4),
        /** KEDA ScaledObject on the depth of the task queue (needs KEDA in the cluster). */
        keda: z
          .object({
            enabled: z.boolean().default(false),
            minReplicas: z.number().int().min(0).default(1),
            maxReplicas: z.number().int().min(1).max(100).default(10),
            tasksPerWorker: z.number().int().min(1).default(8),
          })
          .strict()
          .refine((k) => k.minReplicas <= k.maxReplicas, { message: "minReplicas must not exceed maxReplicas" })
          .default({ enabled: false, minReplicas: 1, maxReplicas: 10, tasksPerWorker: 8 }),
      })
      .default({
        replicas: 2,
        resources: { cpu: "500m", memory: "384Mi", memoryLimit: "1Gi" },
        concurrency: 4,
        keda: { enabled: false, minReplicas: 1, maxReplicas: 10, tasksPerWorker: 8 },
      }),
    orchestrator: component(1, { cpu: "200m", memory: "256Mi", memoryLimit: "512Mi" }).default({ replicas: 1, resources: { cpu: "200m", memory: "256Mi", memoryLimit: "512Mi" } }),
    webUi: component(2, { cpu: "200m", memory: "256Mi", memoryLimit: "512Mi" }).default({ replicas: 2, resources: { cpu: "200m", memory: "256Mi", memoryLimit: "512Mi" } }),
    assistantApi: component(2, { cpu: "200m", memory: "256Mi", memoryLimit: "512Mi" }).default({ replicas: 2, resources: { cpu: "200m", memory: "256Mi", memoryLimit: "512Mi" } }),
    mcp: z
      .object({ enabled: z.boolean().default(false) })
      .strict()
      .default({ enabled: false }),
  })
  .strict()
  .refine((v) => !v.worker.keda.enabled || v.redis.sentinels.length > 0 || !!v.redis.address, {
    message: "worker.keda needs redis.sentinels or redis.address to read the queue depth",
    path: ["redis", "address"],
  });

export type Values = z.infer<typeof valuesSchema>;
