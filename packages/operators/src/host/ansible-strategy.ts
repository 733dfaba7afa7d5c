import type { SvcConfig } from "@svc/config";
import type { HostExecutor } from "@svc/host";

/**
 * The Python a Mitogen play uses on its targets, named: Mitogen's interpreter discovery ships much
 * of Ansible to the target first (about 28 s a play against loopback, more on a TCG guest), where
 * Ansible's own discovery is one small command. Every guest family the catalogue supports (Debian
 * 12, RHEL 9/10 and their rebuilds, VyOS) has it there.
 */
export const MITOGEN_INTERPRETER = "/usr/bin/python3";

/** The strategy a play against VMs runs with, and why (written to the task log). */
export interface AnsibleStrategy {
  /** ANSIBLE_STRATEGY for the play: linear (Ansible's default) or mitogen_linear. */
  strategy: "linear" | "mitogen_linear";
  why: string;
}

// ansible_mitogen.loaders refuses, at import, an Ansible release it does not support: importing it
// with the interpreter of the host's ansible-playbook (its #! line: python3 on PATH may be another
// one) answers both "installed" and "usable with this ansible-core". A fixed script, no caller text.
const PROBE = [
  "sh",
  "-c",
  'p=$(command -v ansible-playbook) || { echo "ansible-playbook is not on PATH" >&2; exit 1; }; i=$(sed -n "1s/^#! *//p" "$p"); exec ${i:-python3} -c "import ansible_mitogen.loaders"',
];
/** A probe's answer: usable, or the reason it is not (the import's last error line). */
const probes = new Map<string, Promise<string | true>>();

/** Forget the probe results (tests; a host whose packages changed is probed again after a restart anyway). */
export function forgetAnsibleStrategyProbes(): void {
  probes.clear();
}

/**
 * SVC_ANSIBLE_STRATEGY applied to one host: `auto` probes the host once per process (cached by
 * target) and takes Mitogen when it imports; a named strategy is used as it is (a missing
 * ansible-mitogen then fails the play with Ansible's own error, which names the strategy).
 */
export async function ansibleStrategyFor(ex: HostExecutor, setting: SvcConfig["ansibleStrategy"], signal?: AbortSignal): Promise<AnsibleStrategy> {
  if (setting !== "auto") return { strategy: setting, why: `SVC_ANSIBLE_STRATEGY=${setting}` };
  let probe = probes.get(ex.target);
  if (!probe) {
    // An answer is kept; a probe that could not run (the host unreachable, aborted) is asked again next time.
    probe = ex.run(PROBE, { timeoutMs: 60_000, signal }).then(
      (r) => r.code === 0 || (r.stderr.trim().split("\n").pop() ?? "").slice(0, 300) || `exit ${r.code}`,
      (e: unknown) => (probes.delete(ex.target), e instanceof Error ? e.message : String(e)),
    );
    probes.set(ex.target, probe);
  }
  const answer = await probe;
  return answer === true
    ? { strategy: "mitogen_linear", why: "ansible-mitogen is installed on the host and supports its Ansible" }
    : { strategy: "linear", why: `ansible-mitogen is not usable on the host (install the ansible-mitogen package for faster plays): ${answer}` };
}
