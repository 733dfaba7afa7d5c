import { readFile } from "node:fs/promises";
import { shellQuote, type HostExecutor } from "@svc/host";
import { scanHostKeys } from "@svc/vm";
import type { OperatorContext, OperatorHost } from "../types";
import { sleep } from "./abortable-sleep";
import { targetsInventory, type InventoryTarget } from "./ansible-run";
import { writeHostFile } from "./remote-files";
import { sshArgv, sshOptionWords } from "./ssh-argv";

/** How the worker reaches a routed host's loopback: its SSH endpoint, key and pinned keys. */
export type Jump = NonNullable<OperatorHost["jump"]>;

/** An Ansible SSH target (as ansible_playbook's `hosts` entries). */
export type JumpTarget = InventoryTarget;

/**
 * The ProxyCommand that reaches %h:%p from the routed host: `ssh -W` to it with its own key,
 * checked against its pinned keys only, as argv words (quoted once, below, never spliced).
 */
export function jumpProxyArgv(jump: Jump, knownHostsPath: string): string[] {
  return sshArgv(jump, { UserKnownHostsFile: knownHostsPath, StrictHostKeyChecking: "yes", BatchMode: "yes", ConnectTimeout: "10" }, ["-W", "%h:%p"]);
}

/**
 * The ProxyCommand option's value: ssh expands `%` tokens, then runs the text with the user's
 * shell. Each word is POSIX single-quoted (shellQuote's rule) and its `%` doubled, except the one
 * `%h:%p` ssh must fill in.
 */
export function proxyCommandText(argv: readonly string[]): string {
  return argv.map((w) => (w === "%h:%p" ? w : shellQuote([w]).replace(/%/g, "%%"))).join(" ");
}

const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * ssh options as the one string ansible_ssh_common_args takes: Ansible splits it with shlex (POSIX
 * rules) after stripping quotes around the whole string, so plain words stay bare (the first is
 * always an option) and the others are single-quoted.
 */
export function sshArgsText(words: readonly string[]): string {
  return words.map((w) => (PLAIN.test(w) ? w : shellQuote([w]))).join(" ");
}

/** The ssh options of a target reached through the jump: its own pinned keys, then the ProxyCommand. */
export function jumpTargetSshWords(jump: Jump, targetKnownHosts: string, jumpKnownHosts: string): string[] {
  return sshOptionWords({
    UserKnownHostsFile: targetKnownHosts,
    StrictHostKeyChecking: "yes",
    BatchMode: "yes",
    ProxyCommand: proxyCommandText(jumpProxyArgv(jump, jumpKnownHosts)),
  });
}

/** Copy the routed host's pinned keys (public data) next to the run's inventory, where ansible runs. */
async function writeJumpKnownHosts(ex: HostExecutor, dir: string, jump: Jump, ctx: OperatorContext): Promise<string> {
  const path = `${dir}/jump_known_hosts`;
  await writeHostFile(ex, path, await readFile(jump.knownHostsPath, "utf8"), ctx);
  return path;
}

/** The targets' keys, scanned from the routed host (only it reaches their loopback forwards). */
async function scanFromHost(vmEx: HostExecutor, t: JumpTarget, ctx: OperatorContext): Promise<string[]> {
  // A guest under TCG on a busy host can miss one scan's deadline: a few tries before giving up.
  for (let attempt = 1; attempt <= 4; attempt++) {
    const keys = await scanHostKeys(vmEx, t.host, t.port, { signal: ctx.signal });
    if (keys.length) return keys;
    if (attempt < 4) await sleep(2000 * attempt, ctx.signal);
  }
  throw new Error(`SSH on ${t.host}:${t.port} did not answer a key scan from ${vmEx.target}; is the VM up (vm_wait_ssh)?`);
}

/**
 * Inventory for targets reached through the routed host: ansible runs where `ex` is (playbooks,
 * vault, inventory directory), each target's keys are scanned from the host and pinned, and ssh
 * goes through the host with its key and pinned keys.
 */
export async function jumpVmInventory(
  ex: HostExecutor,
  vmEx: HostExecutor,
  jump: Jump,
  dir: string,
  hosts: JumpTarget[],
  key: string | undefined,
  ctx: OperatorContext,
  interpreter: string,
) {
  const jumpKh = await writeJumpKnownHosts(ex, dir, jump, ctx);
  const lines: string[] = [];
  for (const h of hosts) lines.push(...(await scanFromHost(vmEx, h, ctx)));
  const knownHosts = `${dir}/known_hosts`;
  await writeHostFile(ex, knownHosts, `${lines.join("\n")}\n`, ctx);
  return targetsInventory(hosts, sshArgsText(jumpTargetSshWords(jump, knownHosts, jumpKh)), key, interpreter);
}

/** Inventory of a play on the routed host itself: SSH to it with its key, checked against its pinned keys. */
export async function jumpHostInventory(ex: HostExecutor, host: OperatorHost & { jump: Jump }, dir: string, ctx: OperatorContext) {
  const jumpKh = await writeJumpKnownHosts(ex, dir, host.jump, ctx);
  const words = sshOptionWords({ UserKnownHostsFile: jumpKh, StrictHostKeyChecking: "yes", BatchMode: "yes", IdentitiesOnly: "yes" });
  const entry = {
    ansible_host: host.jump.address,
    ansible_port: host.jump.port,
    ansible_user: host.jump.user,
    ansible_ssh_private_key_file: host.jump.keyPath,
    ansible_ssh_common_args: sshArgsText(words),
    ansible_python_interpreter: "auto_silent",
  };
  return { all: { hosts: { [host.name]: entry } } };
}

/**
 * Inventory for a cloud instance reached through its host's bastion: the keys vm_wait_ssh pinned
 * (no scan: the bastion only forwards), ssh through the bastion with its pinned keys.
 */
export async function cloudJumpInventory(
  ex: HostExecutor,
  jump: Jump,
  dir: string,
  hosts: JumpTarget[],
  keys: string[],
  key: string | undefined,
  ctx: OperatorContext,
  interpreter: string,
) {
  const jumpKh = await writeJumpKnownHosts(ex, dir, jump, ctx);
  const knownHosts = `${dir}/known_hosts`;
  await writeHostFile(ex, knownHosts, `${keys.join("\n")}\n`, ctx);
  return targetsInventory(hosts, sshArgsText(jumpTargetSshWords(jump, knownHosts, jumpKh)), key, interpreter);
}
