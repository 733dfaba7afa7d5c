import { NonRetryableError, SvcError } from "@svc/errors";

/** The host presented a key that no known_hosts entry lists; pinning it needs a decision. */
export class HostKeyUnknownError extends NonRetryableError {
  constructor(
    readonly host: string,
    readonly fingerprint: string,
    readonly knownHostsPath: string,
  ) {
    super(
      `host key of ${host} is not in ${knownHostsPath} (${fingerprint}); verify the fingerprint and add it ` +
        `(ssh-keyscan, or run once with trustOnFirstUse / svc-vm --trust-on-first-use)`,
    );
  }
}

/** The host's key differs from the pinned one: possible man-in-the-middle; never accepted automatically. */
export class HostKeyChangedError extends NonRetryableError {
  constructor(
    readonly host: string,
    readonly fingerprint: string,
    readonly knownHostsPath: string,
  ) {
    super(
      `HOST KEY CHANGED for ${host}: it now presents ${fingerprint}, which does not match ${knownHostsPath}. ` +
        `This may be an attack; if the host was rebuilt, remove its old entry (ssh-keygen -R) and pin the new key`,
    );
  }
}

/** The server refused our key (or the user). */
export class AuthFailedError extends NonRetryableError {
  constructor(
    readonly target: string,
    keyPath: string | undefined,
  ) {
    super(`authentication failed for ${target} with key ${keyPath ?? "(none)"}; is its public key in the user's authorized_keys?`);
  }
}

/** The command ran past its time limit and was killed. */
export class CommandTimeoutError extends SvcError {
  constructor(
    readonly command: string,
    readonly timeoutMs: number,
  ) {
    super("unavailable", `command '${command}' timed out after ${timeoutMs} ms and was killed`);
  }
}

/** In non-root mode, sudo asked for a password: the user needs passwordless sudo for this command. */
export class SudoRequiredError extends NonRetryableError {
  constructor(
    readonly user: string,
    readonly command: string,
  ) {
    super(`'${command}' needs root, but user '${user}' has no passwordless sudo (sudo -n refused); add a NOPASSWD sudoers rule or run as root`);
  }
}
