// The Kubernetes objects of an svc deployment, built from values with kubernetes-models (typed
// classes generated from the Kubernetes OpenAPI schemas, each with validate()): one Deployment per
// service with probes on its health check, the migration as a Job, per-concern Secrets referenced
// (never created here), external Postgres/Redis (Sentinel included), and the workers' SSH key.
import { ScaledObject, TriggerAuthentication } from "@kubernetes-models/keda/keda.sh/v1alpha1";
import { Deployment } from "kubernetes-models/apps/v1";
import { Job } from "kubernetes-models/batch/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { ConfigMap, Service, type IContainer, type IEnvFromSource, type IProbe, type IVolume, type IVolumeMount } from "kubernetes-models/v1";
import { QUEUE_NAMES } from "@svc/queue";
import { valuesSchema, type Values } from "./values";

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata?: { name?: string; namespace?: string };
  validate(): void;
  toJSON(): unknown;
}

type Svc = "scheduler" | "worker" | "orchestrator" | "web-ui" | "assistant-api" | "mcp-workflow" | "mcp-assistant";
const PART_OF = "svc";
const labels = (component: string) => ({ "app.kubernetes.io/name": "svc", "app.kubernetes.io/component": component, "app.kubernetes.io/part-of": PART_OF });
const healthcheck = (...args: string[]): IProbe["exec"] => ({ command: ["node", "/app/compose/healthcheck.cjs", ...args] });

/** Readiness says "send me work" (dependencies up); liveness only "the process answers", so a Redis or Postgres failover never restarts pods. */
function probes(s: Svc): Pick<IContainer, "readinessProbe" | "livenessProbe" | "startupProbe"> {
  const http = (path: string, port: number): IProbe => ({ httpGet: { path, port }, periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 3 });
  const tcp = (port: number): IProbe => ({ tcpSocket: { port }, periodSeconds: 15, timeoutSeconds: 5, failureThreshold: 4 });
  const beat = (component: string): IProbe => ({ exec: healthcheck("heartbeat", component), periodSeconds: 15, timeoutSeconds: 10, failureThreshold: 8 });
  const startup = (p: IProbe): IProbe => ({ ...p, periodSeconds: 5, failureThreshold: 36 });
  switch (s) {
    case "web-ui":
      return { startupProbe: startup(tcp(8888)), readinessProbe: http("/api/v1/health", 8888), livenessProbe: tcp(8888) };
    case "assistant-api":
      return { startupProbe: startup(tcp(8080)), readinessProbe: http("/health", 8080), livenessProbe: tcp(8080) };
    case "mcp-workflow":
      return { readinessProbe: tcp(8889), livenessProbe: tcp(8889) };
    case "mcp-assistant":
      return { readinessProbe: tcp(8890), livenessProbe: tcp(8890) };
    default:
      // Heartbeat rows in Postgres: a worker that stopped beating is stuck (it also shows as a zombie).
      return { startupProbe: startup(beat(s)), livenessProbe: beat(s) };
  }
}

export function renderManifests(input: unknown): Manifest[] {
  const v: Values = valuesSchema.parse(input);
  const ns = v.namespace;
  const meta = (name: string, component: string) => ({ name, namespace: ns, labels: labels(component) });
  const secretEnv = (secret: string, ...keys: string[]) =>
    keys.map((key) => ({ name: key, valueFrom: { secretKeyRef: { name: secret, key, optional: key === "SVC_REDIS_SENTINEL_PASSWORD" } } }));
  const baseEnv = [...secretEnv(v.secrets.database, "DATABASE_URL"), ...secretEnv(v.secrets.redis, "REDIS_URL", "SVC_REDIS_SENTINEL_PASSWORD")];
  const authEnv = secretEnv(v.secrets.auth, "SVC_ADMIN_PASSWORD", "SVC_API_TOKEN");
  const modelEnv = secretEnv(v.secrets.model, "MODEL_PROVIDER_API_KEY");
  // The assistant tool server's own token (never the admin's credentials): it and the assistant API, when the tool servers run.
  const mcpAssistantEnv = v.mcp.enabled ? secretEnv(v.secrets.mcpAssistant, "SVC_MCP_ASSISTANT_TOKEN") : [];
  const fromConfig: IEnvFromSource[] = [{ configMapRef: { name: "svc-settings" } }];

  const settings = new ConfigMap({
    metadata: meta("svc-settings", "settings"),
    data: {
      SVC_DEPLOYMENT_MODE: "production",
      SVC_REDIS_PREFIX: v.redis.prefix,
      ...(v.redis.sentinelName ? { SVC_REDIS_SENTINELS: v.redis.sentinels.join(","), SVC_REDIS_SENTINEL_NAME: v.redis.sentinelName } : {}),
      SVC_DAGS_DIR: "/app/dags",
      SVC_DOCS_DIR: "/app/docs",
      SVC_PLAYBOOKS_DIR: "/app/playbooks",
      SVC_LOG_FORMAT: "json",
      SVC_BIND_HOST: "0.0.0.0",
      SVC_WORKER_CONCURRENCY: String(v.worker.concurrency),
      SVC_SSH_HOST: v.hypervisor.host,
      SVC_SSH_PORT: String(v.hypervisor.port),
      SVC_SSH_USER: v.hypervisor.user,
      SVC_SSH_KEY_PATH: "/run/svc/ssh/id_key",
      SVC_SSH_KNOWN_HOSTS: "/run/svc/ssh/known_hosts",
      SVC_INVENTORY_DIR: v.hypervisor.inventoryDir,
      SVC_VAULT_PASSWORD_FILE: "/run/svc/vault/vault-password",
      ...v.settings,
    },
  });

  // The SSH key and vault password only where commands reach the hosts: workers and the workflow tool server.
  const hostVolumes: IVolume[] = [
    {
      name: "ssh",
      secret: {
        secretName: v.secrets.ssh,
        defaultMode: 0o400,
        items: [
          { key: "id_key", path: "id_key" },
          { key: "known_hosts", path: "known_hosts" },
        ],
      },
    },
    { name: "vault", secret: { secretName: v.secrets.vault, defaultMode: 0o400 } },
    { name: "tmp", emptyDir: {} },
  ];
  const hostMounts: IVolumeMount[] = [
    { name: "ssh", mountPath: "/run/svc/ssh", readOnly: true },
    { name: "vault", mountPath: "/run/svc/vault", readOnly: true },
    { name: "tmp", mountPath: "/tmp" },
  ];

  const deployment = (
    s: Svc,
    o: { replicas: number; resources: Values["worker"]["resources"]; env: IContainer["env"]; port?: number; args?: string[]; host?: boolean; graceS?: number },
  ) =>
    new Deployment({
      metadata: meta(`svc-${s}`, s),
      spec: {
        replicas: o.replicas,
        selector: { matchLabels: labels(s) },
        // Never fewer ready than asked while rolling: a worker drains its tries before it goes.
        strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
        template: {
          metadata: { labels: labels(s) },
          spec: {
            // SVC_STOP_GRACE_MS (30 s) for running work, plus the 5 s a service allows itself to exit.
            terminationGracePeriodSeconds: o.graceS ?? 40,
            securityContext: {
              runAsNonRoot: true,
              runAsUser: v.hypervisor.uid,
              runAsGroup: v.hypervisor.uid,
              fsGroup: v.hypervisor.uid,
              seccompProfile: { type: "RuntimeDefault" },
            },
            automountServiceAccountToken: false,
            containers: [
              {
                name: s,
                image: v.image,
                imagePullPolicy: v.imagePullPolicy,
                args: o.args ?? [s],
                envFrom: fromConfig,
                env: [...(o.env ?? []), ...(o.host ? [{ name: "HOME", value: "/tmp" }] : [])],
                ...(o.port ? { ports: [{ name: "http", containerPort: o.port }] } : {}),
                resources: {
                  requests: { cpu: o.resources.cpu, memory: o.resources.memory },
                  limits: { memory: o.resources.memoryLimit, ...(o.resources.cpuLimit ? { cpu: o.resources.cpuLimit } : {}) },
                },
                securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: false, capabilities: { drop: ["ALL"] } },
                ...(o.host ? { volumeMounts: hostMounts } : {}),
                ...probes(s),
              },
            ],
            ...(o.host ? { volumes: hostVolumes } : {}),
          },
        },
      },
    });
  const service = (s: Svc, port: number) => new Service({ metadata: meta(`svc-${s}`, s), spec: { selector: labels(s), ports: [{ name: "http", port, targetPort: "http" }] } });
  const pdb = (s: Svc) => new PodDisruptionBudget({ metadata: meta(`svc-${s}`, s), spec: { maxUnavailable: 1, selector: { matchLabels: labels(s) } } });

  const out: Manifest[] = [
    settings,
    new Job({
      metadata: meta("svc-migrate", "migrate"),
      spec: {
        backoffLimit: 6,
        ttlSecondsAfterFinished: 3600,
        template: {
          metadata: { labels: labels("migrate") },
          spec: {
            restartPolicy: "OnFailure",
            securityContext: { runAsNonRoot: true, runAsUser: v.hypervisor.uid, seccompProfile: { type: "RuntimeDefault" } },
            automountServiceAccountToken: false,
            containers: [
              {
                name: "migrate",
                image: v.image,
                imagePullPolicy: v.imagePullPolicy,
                args: ["migrate"],
                envFrom: fromConfig,
                env: secretEnv(v.secrets.database, "DATABASE_URL"),
                securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
              },
            ],
          },
        },
      },
    }),
    deployment("scheduler", { ...v.scheduler, env: baseEnv }),
    deployment("worker", { ...v.worker, env: baseEnv, host: true, graceS: 65 }),
    deployment("orchestrator", { ...v.orchestrator, env: [...baseEnv, ...modelEnv] }),
    deployment("web-ui", { ...v.webUi, env: [...baseEnv, ...authEnv, { name: "SVC_WEB_UI_PORT", value: "8888" }], port: 8888 }),
    service("web-ui", 8888),
    deployment("assistant-api", { ...v.assistantApi, env: [...baseEnv, ...authEnv, ...modelEnv, ...mcpAssistantEnv, { name: "SVC_ASSISTANT_PORT", value: "8080" }], port: 8080 }),
    service("assistant-api", 8080),
  ];
  for (const [s, c] of [
    ["worker", v.worker],
    ["web-ui", v.webUi],
    ["assistant-api", v.assistantApi],
    ["scheduler", v.scheduler],
  ] as const)
    if (c.replicas > 1) out.push(pdb(s));
  if (v.mcp.enabled) {
    const small = { replicas: 1, resources: { cpu: "100m", memory: "192Mi", memoryLimit: "384Mi" } };
    out.push(deployment("mcp-workflow", { ...small, env: baseEnv, port: 8889, args: ["mcp-workflow", "--http", "--port", "8889"], host: true }), service("mcp-workflow", 8889));
    out.push(
      deployment("mcp-assistant", {
        ...small,
        env: [...baseEnv, ...mcpAssistantEnv, { name: "SVC_ASSISTANT_URL", value: "http://svc-assistant-api:8080" }],
        port: 8890,
        args: ["mcp-assistant", "--http", "--port", "8890"],
      }),
      service("mcp-assistant", 8890),
    );
  }
  if (v.worker.keda.enabled) out.push(...kedaObjects(v, meta));
  return out;
}

/** KEDA scales the workers on the length of the task queue's wait list (BullMQ keeps it as a Redis list). */
function kedaObjects(v: Values, meta: (name: string, component: string) => { name: string; namespace: string; labels: Record<string, string> }): Manifest[] {
  const k = v.worker.keda;
  const listName = `${v.redis.prefix}:${QUEUE_NAMES.tasks}:wait`;
  const sentinel = v.redis.sentinels.length > 0;
  const auth = new TriggerAuthentication({
    metadata: meta("svc-redis-queue", "worker"),
    spec: {
      secretTargetRef: [
        { parameter: "password", name: v.secrets.redis, key: "SVC_REDIS_PASSWORD" },
        ...(sentinel ? [{ parameter: "sentinelPassword", name: v.secrets.redis, key: "SVC_REDIS_SENTINEL_PASSWORD" }] : []),
      ],
    },
  });
  const metadata: Record<string, string> = sentinel
    ? { addresses: v.redis.sentinels.join(","), sentinelMaster: v.redis.sentinelName!, listName, listLength: String(k.tasksPerWorker) }
    : { address: v.redis.address!, listName, listLength: String(k.tasksPerWorker) };
  const scaled = new ScaledObject({
    metadata: meta("svc-worker", "worker"),
    spec: {
      scaleTargetRef: { name: "svc-worker" },
      minReplicaCount: k.minReplicas,
      maxReplicaCount: k.maxReplicas,
      // Scaling down waits: a worker leaving hands back nothing, but finishes what it runs first.
      cooldownPeriod: 300,
      triggers: [{ type: sentinel ? "redis-sentinel" : "redis", metadata, authenticationRef: { name: "svc-redis-queue" } }],
    },
  });
  return [auth, scaled];
}

/** Validate every object against its Kubernetes (or KEDA) schema; throws naming the first bad one. */
export function validateManifests(objects: Manifest[]): void {
  for (const o of objects) {
    try {
      o.validate();
    } catch (e) {
      throw new Error(`${o.kind} ${o.metadata?.name ?? "(unnamed)"}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}

/** YAML stream (each document JSON, which is YAML) for `kubectl apply -f -`. */
export function toYamlStream(objects: Manifest[]): string {
  return objects.map((o) => `---\n${JSON.stringify(o.toJSON(), null, 2)}\n`).join("");
}
