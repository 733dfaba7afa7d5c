/**
 * The variables of a service's own environment that the commands it starts inherit (the shell
 * operator's commands); secrets (DATABASE_URL, SVC_*, API keys) never do.
 */
export const CHILD_ENV_ALLOWLIST = ["PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "TERM"] as const;

/** SvcConfig.childEnv: the allowlisted variables of `env` that are set. */
export function childEnvOf(env: Record<string, string | undefined>): Readonly<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const k of CHILD_ENV_ALLOWLIST) {
    const v = env[k];
    if (typeof v === "string") out[k] = v;
  }
  return out;
}
