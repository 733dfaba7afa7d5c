/** ssh `-o` options as argv words, in the order given: `{ BatchMode: "yes" }` → `["-o", "BatchMode=yes"]`. */
export function sshOptionWords(options: Record<string, string>): string[] {
  return Object.entries(options).flatMap(([k, v]) => ["-o", `${k}=${v}`]);
}

/** Where one ssh goes and as whom, with which key. */
export interface SshEndpoint {
  keyPath: string;
  port: number;
  user: string;
  address: string;
}

/**
 * ssh's argv to `to` with no config file and only its key (`-F /dev/null`, IdentitiesOnly), then
 * `options`, then `extra` words before `--` and the address.
 */
export function sshArgv(to: SshEndpoint, options: Record<string, string>, extra: readonly string[] = []): string[] {
  return ["ssh", "-F", "/dev/null", "-i", to.keyPath, ...sshOptionWords({ IdentitiesOnly: "yes", ...options }), "-p", String(to.port), "-l", to.user, ...extra, "--", to.address];
}
