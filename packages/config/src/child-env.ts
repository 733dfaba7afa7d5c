/**
 * The variables of a service's own environment that a command it runs on this machine inherits
 * (the shell operator's commands; ansible-playbook and svc-vm in local mode): a path, a home, a
 * user and a locale. Secrets and settings (DATABASE_URL, REDIS_URL, SVC_*, API keys) never do.
 */
export const CHILD_ENV_ALLOWLIST = ["PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "TERM"] as const;

/** The allow-listed variables of `env`, then `extra` (a task's own variables) over them. */
export function childEnv(env: Readonly<Record<string, string | undefined>>, extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of CHILD_ENV_ALLOWLIST) {
    const v = env[k];
    if (typeof v === "string") out[k] = v;
  }
  return { ...out, ...extra };
}
