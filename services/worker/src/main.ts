import { assertTrustedFiles, loadConfig } from "@svc/config";
import { bootDatabase, onShutdown, startEngineRuntime } from "@svc/engine/runtime";
import { createHostRouting } from "@svc/hosts/routing";
import { createLogger } from "@svc/logger";
import { defaultOperators } from "@svc/operators";
import { refuseEvictingRedis } from "@svc/queue";
import { cloudDriverFor, secretsFromConfig } from "@svc/vm";
import { parseHostsOption, WORKER_USAGE } from "./hosts-option";

/**
 * Worker service: runs task tries from the `tasks` queue and from the queues of the hypervisor
 * hosts it serves (`--hosts`, SVC_WORKER_HOSTS; default all), SVC_WORKER_CONCURRENCY at a time.
 */
async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  // --help and a bad argument are answered before the configuration is read.
  if (parseHostsOption(argv, undefined).kind === "help") {
    process.stdout.write(WORKER_USAGE);
    return;
  }
  const config = loadConfig(process.env);
  const choice = parseHostsOption(argv, config.worker.hosts);
  if (choice.kind === "help") return;
  // The SSH key, vault password and secrets file: owner-only, or no start (as OpenSSH refuses a key).
  assertTrustedFiles(config);
  const logger = createLogger("worker", config.logLevel, config.logFormat);
  const db = await bootDatabase(config.databaseUrl, logger, "svc-worker");
  await refuseEvictingRedis(config.redisUrl, logger);
  // Probes the served hosts (pinned keys), routes host-scoped tries; `local` is made from the settings.
  // A cloud host's driver is called in this process: its credentials from the secrets file (read once), never from a row or a param.
  const secrets = secretsFromConfig(config);
  const hosts = createHostRouting({
    db,
    logger: logger.child({ component: "hosts" }),
    hosts: choice.hosts,
    localSettings: config,
    weigher: config.placement.weigher,
    cloudDriver: (h) => cloudDriverFor(h, secrets, h.provider_settings.ssh_user ? { sshUser: h.provider_settings.ssh_user } : {}),
  });
  const rt = startEngineRuntime({ db, config, logger, operators: defaultOperators(), scheduler: false, hosts });
  logger.info({ hosts: choice.hosts }, "serving hypervisor hosts");
  // Running tries get SVC_STOP_GRACE_MS to finish; the ones still running are handed back.
  onShutdown(
    logger,
    async () => {
      await rt.stop();
      await hosts.close();
      await db.destroy();
    },
    config.limits.stopGraceMs,
  );
}

main().catch((e) => {
  process.stderr.write(`worker failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
