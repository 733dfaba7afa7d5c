import { ConfigError, loadConfig, type SvcConfig } from "@svc/config";
import { createDb, type Db } from "@svc/db";
import { secretsFromConfig } from "@svc/vm";
import { createCloudProbe } from "../cloud-probe";
import { ensureLocalHost } from "../local-host";
import { createHostService, type HostService, type HostServiceDeps } from "../service";

/** Where the CLI writes; tests and the binary pass their own. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  env: Record<string, string | undefined>;
}

/** A usage error (exit 2), raised before anything is done. */
export class UsageError extends Error {}

/** The database and the service of one invocation, opened on first use. */
export class CliContext {
  private cfg?: SvcConfig;
  private database?: Db;
  private svc?: HostService;

  constructor(
    readonly io: CliIo,
    private readonly deps: Omit<HostServiceDeps, "db"> = {},
  ) {}

  get config(): SvcConfig {
    if (!this.cfg) {
      try {
        this.cfg = loadConfig(this.io.env);
      } catch (e) {
        if (e instanceof ConfigError) throw new UsageError(`invalid configuration: ${e.problems.join("; ")}`);
        throw e;
      }
    }
    return this.cfg;
  }

  /** Who acts, for the audit trail. */
  get actor(): string {
    return `cli:${this.io.env.SUDO_USER ?? this.io.env.USER ?? "unknown"}`;
  }

  /** The host service, after making sure `local` exists (it is made from the settings once). */
  async service(): Promise<HostService> {
    if (this.svc) return this.svc;
    this.database = createDb(this.config.databaseUrl, { max: 4, applicationName: "svc-hosts" });
    const local = await ensureLocalHost(this.database, this.config, this.actor);
    if (local.drift.length) this.io.err(`warning: host 'local' differs from this environment's settings in ${local.drift.join(", ")} (the inventory is kept)`);
    this.svc = createHostService({ cloudProbe: createCloudProbe(secretsFromConfig(this.config)), ...this.deps, db: this.database });
    return this.svc;
  }

  async close(): Promise<void> {
    await this.database?.destroy().catch(() => undefined);
  }
}
