import { loadConfig, ConfigError, type SvcConfig } from "@svc/config";
import { createDb, type Db } from "@svc/db";
import { createEngineApi, createQueueNotifier, dagSettingsFromConfig, nullNotifier, type EngineApi, type Notifier } from "@svc/engine";
import { silentLogger } from "@svc/logger";
import { defaultOperators } from "@svc/operators";
import { createQueues, openRedis, type Queues } from "@svc/queue";
import { CliError } from "./errors";

/** Where the CLI writes; tests and the binary pass process streams. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Record<string, string | undefined>;
}

const NOTIFY_TIMEOUT_MS = 3000;

/** Lazily opened resources of one CLI invocation (database, engine API, scheduler notifier). */
export class CliContext {
  private cfg?: SvcConfig;
  private database?: Db;
  private queues?: Queues;
  private engine?: EngineApi;
  private engineNotifies = false;
  private warned = false;

  constructor(readonly io: CliIo) {}

  /** Whether the configuration was loaded (and is valid). */
  hasConfig(): boolean {
    return this.cfg !== undefined;
  }

  get config(): SvcConfig {
    if (!this.cfg) {
      try {
        this.cfg = loadConfig(this.io.env);
      } catch (e) {
        if (e instanceof ConfigError) throw new CliError(`invalid configuration: ${e.problems.join("; ")}`);
        throw e;
      }
    }
    return this.cfg;
  }

  get db(): Db {
    this.database ??= createDb(this.config.databaseUrl, { max: 2, applicationName: "svc-engine-cli" });
    return this.database;
  }

  /** The engine API; `notify` connects to Redis so writes reach the scheduler at once. */
  api(opts: { notify?: boolean } = {}): EngineApi {
    if (!this.engine || (opts.notify && !this.engineNotifies)) {
      const c = this.config;
      this.engineNotifies = Boolean(opts.notify);
      const notifier = opts.notify ? this.boundedNotifier() : nullNotifier;
      this.engine = createEngineApi({
        db: this.db,
        notifier,
        dagsDir: c.dagsDir,
        catalog: defaultOperators(),
        settings: dagSettingsFromConfig(c),
        maxPageLimit: c.http.maxPageLimit,
        cloudApproval: c.placement.cloudApproval,
        logger: silentLogger(),
      });
    }
    return this.engine;
  }

  /**
   * Notifications are an optimisation (the scheduler's reconciliation finds every change), so an
   * unreachable Redis costs a warning and a few seconds, never the command.
   */
  private boundedNotifier(): Notifier {
    const connection = openRedis(this.config.redisUrl, { maxRetriesPerRequest: 1, connectTimeout: 2000, retryStrategy: (n: number) => (n > 2 ? null : 200) });
    connection.on("error", () => undefined);
    this.queues = createQueues({ url: this.config.redisUrl, prefix: this.config.redisPrefix }, connection);
    const inner = createQueueNotifier(this.queues, () => this.warnNotify());
    const bounded =
      <A extends unknown[]>(fn: (...a: A) => Promise<void>) =>
      async (...a: A) => {
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<void>((resolve) => (timer = setTimeout(() => (this.warnNotify(), resolve()), NOTIFY_TIMEOUT_MS)));
        await Promise.race([fn(...a), timeout]);
        clearTimeout(timer);
      };
    return {
      runChanged: bounded((...a: Parameters<Notifier["runChanged"]>) => inner.runChanged(...a)),
      dagChanged: bounded((...a: Parameters<Notifier["dagChanged"]>) => inner.dagChanged(...a)),
    };
  }

  private warnNotify(): void {
    if (this.warned) return;
    this.warned = true;
    this.io.stderr("warning: could not notify the scheduler through Redis; it will pick the change up on its next reconciliation\n");
  }

  /** Close whatever was opened; never hangs on a dead Redis. */
  async close(): Promise<void> {
    const q = this.queues;
    if (q) {
      await Promise.race([q.close().catch(() => undefined), new Promise((r) => setTimeout(r, 1000))]);
      q.connection.disconnect();
    }
    await this.database?.destroy().catch(() => undefined);
  }
}
