import { isIP } from "node:net";
import path from "node:path";
import { z } from "zod";
import { VM_ENV, vmSettingsOf, type VmSettingsConfig } from "./vm-settings";
import { LIMITS_ENV, limitsOf, type SvcLimits } from "./limits";
import { REDIS_ENV, redisUrlOf } from "./redis-settings";
import { MCP_ENV, mcpSettingsOf, type McpSettings } from "./mcp-settings";
import { LIBVIRT_ENV, libvirtSettingsOf, type LibvirtSettings } from "./libvirt-settings";
import { MCP_ACCESS_ENV, mcpAccessOf, type McpAccess } from "./mcp-access";
import { childEnv } from "./child-env";
import { HTTP_CHECK_ENV, httpCheckOf, type HttpCheckSettings } from "./http-check-settings";

/** A DNS name, an IPv4 address or an IPv6 one (bare or in brackets): what a Host header names, without its port. */
const isHostName = (h: string) =>
  isIP(h.replace(/^\[(.*)\]$/, "$1")) !== 0 || /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/.test(h);
const bool = z.enum(["true", "false", "1", "0", "yes", "no"]).transform((v) => v === "true" || v === "1" || v === "yes");
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** How a VM is placed when several hosts fit (SVC_PLACEMENT_WEIGHER): spread evens the load, pack fills one host first. */
export const PLACEMENT_WEIGHERS = ["spread", "pack"] as const;
/** Who approves a VM-creating run on a cloud host (SVC_CLOUD_APPROVAL): an op (the default), or nobody beyond the usual rules. */
export const CLOUD_APPROVALS = ["op", "none"] as const;

/** Every SVC_* (and related) variable the platform reads, with defaults. */
const envSchema = z.object({
  // A URL, or libpq's multi-host form (postgres://u@h1:p1,h2:p2/db?target_session_attrs=read-write),
  // which @svc/db parses: checked here with the first host standing for the list.
  DATABASE_URL: z
    .string()
    .refine((u) => URL.canParse(u.replace(/^(postgres(?:ql)?:\/\/(?:[^@/?#]*@)?)([^,/?#]*),[^/?#]*/, "$1$2")), "Invalid url")
    .default("postgres://postgres@127.0.0.1:5432/svc"),
  ...REDIS_ENV,
  SVC_REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.-]+$/)
    .default("svc"),
  SVC_DAGS_DIR: z.string().default("dags"),
  SVC_DOCS_DIR: z.string().default("docs"),
  SVC_PLAYBOOKS_DIR: z.string().default("playbooks"),
  SVC_WORKER_CONCURRENCY: int(1, 256).default(4),
  SVC_WORKER_HEARTBEAT_MS: int(100, 60000).default(1000),
  SVC_ZOMBIE_AFTER_MS: int(500, 600000).default(10000),
  SVC_WORKER_LOCK_MS: int(1000, 600000).default(10000),
  SVC_RECONCILE_INTERVAL_MS: int(200, 600000).default(5000),
  /** The hosts a worker serves when --hosts is not given: NAME[,NAME...] or all (checked by the worker). */
  SVC_WORKER_HOSTS: z.string().optional(),
  SVC_PLACEMENT_WEIGHER: z.enum(PLACEMENT_WEIGHERS, { error: `must be one of ${PLACEMENT_WEIGHERS.join(", ")}` }).default("spread"),
  SVC_CLOUD_APPROVAL: z.enum(CLOUD_APPROVALS, { error: `must be one of ${CLOUD_APPROVALS.join(", ")}` }).default("op"),
  SVC_DOMAIN: z.string().default("lab.example.com"),
  SVC_ADMIN_USER: z.string().optional(),
  SVC_ADMIN_PASSWORD: z.string().optional(),
  SVC_API_TOKEN: z.string().optional(),
  SVC_API_TOKEN_ROLE: z.enum(["viewer", "user", "op", "admin"]).default("admin"),
  SVC_USERS: z
    .string()
    .transform((v, c) => {
      try {
        return JSON.parse(v) as unknown;
      } catch {
        c.addIssue({ code: "custom", message: "must be a JSON array" });
        return z.NEVER;
      }
    })
    .pipe(z.array(z.object({ name: z.string().min(1), role: z.enum(["viewer", "user", "op", "admin"]), password_hash: z.string().startsWith("scrypt$") }).strict()))
    .optional(),
  SVC_CLUSTER_NAME: z.string().default("ocp"),
  SVC_DEPLOYMENT_MODE: z.enum(["development", "production"]).default("development"),
  SVC_ENABLE_AI_ASSISTANT: bool.default(true),
  SVC_ENABLE_WORKFLOWS: bool.default(true),
  SVC_WORKFLOW_UI_URL: z.string().default("http://localhost:8888"),
  SVC_ASSISTANT_PORT: int(0, 65535).default(8080),
  SVC_WEB_UI_PORT: int(0, 65535).default(8888),
  SVC_BIND_HOST: z.string().optional(),
  SVC_MAX_PAGE_LIMIT: int(1, 10000).default(100),
  /** Which peers may set X-Forwarded-For (express "trust proxy"): presets loopback, linklocal, uniquelocal, or IPs/CIDRs, comma-separated. */
  SVC_TRUST_PROXY: z
    .string()
    .default("loopback")
    .refine((v) => v.split(",").every((p) => /^(loopback|linklocal|uniquelocal|[0-9a-fA-F:.]+(\/\d{1,3})?)$/.test(p.trim())), {
      message: "a comma-separated list of loopback, linklocal, uniquelocal or IP addresses/CIDRs",
    }),
  /** Host names (or addresses) the HTTP APIs answer to, comma-separated, any port; unset: any. An open API (no credentials) answers only to loopback names. */
  SVC_ALLOWED_HOSTS: z
    .string()
    .transform((v) =>
      v
        .split(",")
        .map((h) => h.trim())
        .filter(Boolean),
    )
    .refine((l) => l.length > 0 && l.every(isHostName), {
      message: "a comma-separated list of host names or IP addresses (no ports)",
    })
    .optional(),
  MODEL_PROVIDER_API_KEY: z.string().optional(),
  SVC_MODEL_NAME: z.string().default("gpt-4o-mini"),
  SVC_MODEL_BASE_URL: z.string().url().optional(),
  SVC_MODEL_TIMEOUT_MS: int(100, 120000).default(8000),
  USE_LOCAL_MODEL: bool.default(false),
  SVC_LOCAL_MODEL_URL: z.string().url().optional(),
  SVC_SSH_HOST: z.string().default("127.0.0.1"),
  SVC_SSH_PORT: int(1, 65535).default(22),
  SVC_SSH_USER: z.string().optional(),
  USER: z.string().optional(),
  SVC_SSH_KEY_PATH: z.string().optional(),
  SVC_SSH_KNOWN_HOSTS: z.string().optional(),
  SVC_INVENTORY_DIR: z.string().default("/var/lib/svc/inventory"),
  SVC_HOST_STATE_DIR: z
    .string()
    .regex(/^\/[^\0]*$/, "an absolute path on the host")
    .optional(),
  SVC_VAULT_PASSWORD_FILE: z.string().optional(),
  SVC_SECRETS_FILE: z.string().optional(),
  /** Entra ID authority of Azure hosts without --authority-host (as @azure/identity reads it). */
  AZURE_AUTHORITY_HOST: z.string().url().startsWith("https://", "an https URL").optional(),
  SVC_PULL_SECRET_FILE: z.string().optional(),
  ...VM_ENV,
  SVC_ANSIBLE_STRATEGY: z.enum(["auto", "linear", "mitogen_linear"]).default("auto"),
  SVC_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** json or pretty; unset: pretty on a terminal, else json. */
  SVC_LOG_FORMAT: z.enum(["json", "pretty"]).optional(),
  ...LIMITS_ENV,
  ...MCP_ENV,
  ...LIBVIRT_ENV,
  ...MCP_ACCESS_ENV,
  ...HTTP_CHECK_ENV,
});

export type SvcEnv = z.infer<typeof envSchema>;
/** A role of the HTTP APIs (see @svc/http). */
export type ApiRole = "viewer" | "user" | "op" | "admin";

export interface SvcConfig {
  readonly databaseUrl: string;
  readonly redisUrl: string;
  readonly redisPrefix: string;
  readonly dagsDir: string;
  readonly docsDir: string;
  readonly playbooksDir: string;
  readonly worker: {
    readonly concurrency: number;
    readonly heartbeatMs: number;
    readonly zombieAfterMs: number;
    /** How long a task or intent job taken by a process that stopped renewing it stays taken (BullMQ's lock); checked every half of it. */
    readonly lockMs: number;
    /** SVC_WORKER_HOSTS as given (the worker checks the names, as it does --hosts); unset: all. */
    readonly hosts?: string;
  };
  readonly placement: {
    readonly weigher: (typeof PLACEMENT_WEIGHERS)[number];
    /** `op`: a VM-creating run on a cloud host waits for an op's approval (a REST trigger needs the role op); `none`: the usual rules. */
    readonly cloudApproval: (typeof CLOUD_APPROVALS)[number];
  };
  readonly reconcileIntervalMs: number;
  readonly domain: string;
  readonly clusterName: string;
  readonly deploymentMode: "development" | "production";
  readonly enableAiAssistant: boolean;
  readonly enableWorkflows: boolean;
  readonly workflowUiUrl: string;
  readonly http: { readonly assistantPort: number; readonly webUiPort: number; readonly bindHost: string | undefined; readonly maxPageLimit: number; readonly trustProxy: string };
  /** SVC_ALLOWED_HOSTS: the Host names the HTTP APIs answer to besides loopback ones (unset: any; an open API: loopback only). */
  readonly allowedHosts?: readonly string[];
  readonly auth: {
    readonly adminUser?: string;
    readonly adminPassword?: string;
    readonly apiToken?: string;
    readonly apiTokenRole?: ApiRole;
    /** SVC_USERS: [{"name","role","password_hash"}] with scrypt hashes (made with hashPassword of @svc/http; see docs/rest-api.md). */
    readonly users?: readonly { readonly name: string; readonly role: ApiRole; readonly passwordHash: string }[];
  };
  readonly model: {
    readonly apiKey?: string;
    readonly name: string;
    readonly baseUrl?: string;
    readonly timeoutMs: number;
    readonly useLocalModel: boolean;
    readonly localModelUrl?: string;
  };
  readonly ssh: {
    readonly host: string;
    readonly port: number;
    readonly user: string;
    readonly keyPath?: string;
    readonly knownHostsPath?: string;
  };
  readonly inventoryDir: string;
  /**
   * Directory on the host where the at-most-once fence keeps its lock and result files, writable by
   * the SSH user (SVC_HOST_STATE_DIR, default <inventoryDir>/tries: the inventory directory is already theirs).
   */
  readonly hostStateDir: string;
  readonly vaultPasswordFile?: string;
  /** ansible-vault file on the host with the services' passwords (default <inventoryDir>/secrets.yml). */
  readonly secretsFile: string;
  /** AZURE_AUTHORITY_HOST: the Entra ID authority of Azure hosts that name none. */
  readonly azureAuthorityHost?: string;
  /** OpenShift pull secret on the host (default <inventoryDir>/pull-secret.json). */
  readonly pullSecretFile: string;
  readonly vm: VmSettingsConfig;
  /**
   * How ansible-playbook drives VMs (SVC_ANSIBLE_STRATEGY): auto = Mitogen's mitogen_linear when
   * ansible-mitogen imports on the host (one Python per target that keeps its imports: a task on a
   * slow guest costs a third), else Ansible's linear; or either one named.
   */
  readonly ansibleStrategy: SvcEnv["SVC_ANSIBLE_STRATEGY"];
  readonly logLevel: SvcEnv["SVC_LOG_LEVEL"];
  /** SVC_LOG_FORMAT; auto: pretty when stdout is a terminal. */
  readonly logFormat: "auto" | "json" | "pretty";
  readonly limits: SvcLimits;
  readonly mcp: McpSettings;
  readonly libvirt: LibvirtSettings;
  /** The MCP tool servers' roles and the assistant tool server's token (mcp-access.ts). */
  readonly mcpAccess: McpAccess;
  /**
   * The allow-listed variables of the environment read (CHILD_ENV_ALLOWLIST: PATH, HOME, USER,
   * locale): the base environment of the commands a service runs on this machine. No secret.
   */
  readonly childEnv: Readonly<Record<string, string>>;
  /** The networks the http_check operator may reach (SVC_HTTP_CHECK_ALLOW). */
  readonly httpCheck: HttpCheckSettings;
}

/** Thrown by loadConfig; lists every bad variable at once. Never includes values. */
export class ConfigError extends Error {
  readonly code = "config_invalid";
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join("\n  ")}`);
    this.name = "ConfigError";
  }
}

/** Parse the environment once at boot; returns a frozen, typed config. */
export function loadConfig(env: NodeJS.ProcessEnv | Record<string, string | undefined>): SvcConfig {
  // Empty strings mean "unset": compose files often pass VAR= for optional values.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`));
  }
  const e = parsed.data;
  const redis = redisUrlOf(e);
  if (redis.problems.length) throw new ConfigError(redis.problems);
  const mcp = mcpAccessOf(e);
  if (mcp.problems.length) throw new ConfigError(mcp.problems);
  const cfg: SvcConfig = {
    databaseUrl: e.DATABASE_URL,
    redisUrl: redis.url,
    redisPrefix: e.SVC_REDIS_PREFIX,
    // Absolute, so that paths handed to ansible over SSH or to child processes mean the same thing.
    dagsDir: path.resolve(e.SVC_DAGS_DIR),
    docsDir: path.resolve(e.SVC_DOCS_DIR),
    playbooksDir: path.resolve(e.SVC_PLAYBOOKS_DIR),
    worker: {
      concurrency: e.SVC_WORKER_CONCURRENCY,
      heartbeatMs: e.SVC_WORKER_HEARTBEAT_MS,
      zombieAfterMs: e.SVC_ZOMBIE_AFTER_MS,
      lockMs: e.SVC_WORKER_LOCK_MS,
      hosts: e.SVC_WORKER_HOSTS,
    },
    placement: { weigher: e.SVC_PLACEMENT_WEIGHER, cloudApproval: e.SVC_CLOUD_APPROVAL },
    reconcileIntervalMs: e.SVC_RECONCILE_INTERVAL_MS,
    domain: e.SVC_DOMAIN,
    clusterName: e.SVC_CLUSTER_NAME,
    deploymentMode: e.SVC_DEPLOYMENT_MODE,
    enableAiAssistant: e.SVC_ENABLE_AI_ASSISTANT,
    enableWorkflows: e.SVC_ENABLE_WORKFLOWS,
    workflowUiUrl: e.SVC_WORKFLOW_UI_URL.replace(/\/+$/, ""),
    http: { assistantPort: e.SVC_ASSISTANT_PORT, webUiPort: e.SVC_WEB_UI_PORT, bindHost: e.SVC_BIND_HOST, maxPageLimit: e.SVC_MAX_PAGE_LIMIT, trustProxy: e.SVC_TRUST_PROXY },
    allowedHosts: e.SVC_ALLOWED_HOSTS,
    auth: {
      adminUser: e.SVC_ADMIN_USER,
      adminPassword: e.SVC_ADMIN_PASSWORD,
      apiToken: e.SVC_API_TOKEN,
      apiTokenRole: e.SVC_API_TOKEN_ROLE,
      users: e.SVC_USERS?.map((u) => ({ name: u.name, role: u.role, passwordHash: u.password_hash })),
    },
    model: {
      apiKey: e.MODEL_PROVIDER_API_KEY,
      name: e.SVC_MODEL_NAME,
      baseUrl: e.SVC_MODEL_BASE_URL,
      timeoutMs: e.SVC_MODEL_TIMEOUT_MS,
      useLocalModel: e.USE_LOCAL_MODEL,
      localModelUrl: e.SVC_LOCAL_MODEL_URL,
    },
    ssh: { host: e.SVC_SSH_HOST, port: e.SVC_SSH_PORT, user: e.SVC_SSH_USER ?? e.USER ?? "root", keyPath: e.SVC_SSH_KEY_PATH, knownHostsPath: e.SVC_SSH_KNOWN_HOSTS },
    inventoryDir: e.SVC_INVENTORY_DIR,
    hostStateDir: e.SVC_HOST_STATE_DIR ?? `${e.SVC_INVENTORY_DIR.replace(/\/+$/, "")}/tries`,
    vaultPasswordFile: e.SVC_VAULT_PASSWORD_FILE,
    secretsFile: e.SVC_SECRETS_FILE ?? `${e.SVC_INVENTORY_DIR}/secrets.yml`,
    ...(e.AZURE_AUTHORITY_HOST ? { azureAuthorityHost: e.AZURE_AUTHORITY_HOST } : {}),
    pullSecretFile: e.SVC_PULL_SECRET_FILE ?? `${e.SVC_INVENTORY_DIR}/pull-secret.json`,
    vm: vmSettingsOf(e),
    ansibleStrategy: e.SVC_ANSIBLE_STRATEGY,
    logLevel: e.SVC_LOG_LEVEL,
    logFormat: e.SVC_LOG_FORMAT ?? "auto",
    limits: limitsOf(e),
    mcp: mcpSettingsOf(e),
    libvirt: libvirtSettingsOf(e),
    mcpAccess: mcp.access,
    childEnv: childEnv(cleaned),
    httpCheck: httpCheckOf(e),
  };
  return deepFreeze(cfg);
}

function deepFreeze<T>(o: T): T {
  if (o && typeof o === "object") {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}

/** Platform settings that DAG param defaults may reference as `{{ settings.<key> }}`. */
export function dagSettingsFromConfig(config: SvcConfig): Record<string, string> {
  return {
    domain: config.domain,
    cluster_name: config.clusterName,
    admin_user: config.auth.adminUser ?? "admin",
    inventory_dir: config.inventoryDir,
    playbooks_dir: config.playbooksDir,
    default_image: config.vm.defaultImage,
    vm_network: config.vm.defaultNetwork,
  };
}
