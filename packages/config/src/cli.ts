import { ConfigError, loadConfig } from "./config";
import { hostSettingsLines } from "./host-settings";

const HELP = `Usage: svc-config host

Prints, one KEY=value per line, the host-facing settings the services resolve from this
environment (SSH user, key and known_hosts, VM images and disks directories, default image and
network). The host scripts read it so that they prepare exactly what the workers will use.
Exit status 2 with every invalid variable listed when the configuration is invalid.`;

function main(argv: string[]): number {
  const [verb] = argv;
  if (verb === "-h" || verb === "--help" || verb === undefined) {
    process.stdout.write(`${HELP}\n`);
    return verb === undefined ? 2 : 0;
  }
  if (verb !== "host") {
    process.stderr.write(`svc-config: unknown command '${verb.slice(0, 40)}' (see svc-config --help)\n`);
    return 2;
  }
  try {
    process.stdout.write(`${hostSettingsLines(loadConfig(process.env)).join("\n")}\n`);
    return 0;
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`svc-config: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
}

process.exitCode = main(process.argv.slice(2));
