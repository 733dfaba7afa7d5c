/** Where a test's private sshd listens and what it reads. */
export interface TestSshdConfig {
  port: number;
  /** Addresses it listens on (127.0.0.1, and a bridge gateway for containers). */
  listen: string[];
  hostKey: string;
  pidFile: string;
  authorizedKeys: string;
  /** The one user it lets in. */
  user: string;
  /** Sessions one connection may open (sshd's default, 10, when absent). */
  maxSessions?: number;
}

/** The sshd_config of a test's private sshd (startSshd, the second hosts, the compose harness): keys only, one user. */
export function testSshdConfig(o: TestSshdConfig): string {
  return [
    `Port ${o.port}`,
    ...o.listen.map((a) => `ListenAddress ${a}`),
    `HostKey ${o.hostKey}`,
    `PidFile ${o.pidFile}`,
    `AuthorizedKeysFile ${o.authorizedKeys}`,
    "PasswordAuthentication no",
    "KbdInteractiveAuthentication no",
    "PermitRootLogin prohibit-password",
    // The files live under /tmp; this sshd is private to one test file.
    "StrictModes no",
    "UsePAM no",
    `AllowUsers ${o.user}`,
    ...(o.maxSessions === undefined ? [] : [`MaxSessions ${o.maxSessions}`]),
    // bash does not take the commands for sshd's (SHLVL 1 becomes 2), so it does not read the
    // login user's ~/.bashrc: on some machines root's starts a Python version manager, over a
    // second of CPU per command, which slowed every SSH-driven test beside TCG guests.
    "SetEnv SHLVL=1",
    "LogLevel ERROR",
    "",
  ].join("\n");
}
