import { posix } from "node:path";
import { NonRetryableError } from "@svc/errors";
import type { Operator } from "../types";
import { cloudJumpInventory, jumpHostInventory, jumpVmInventory } from "./ansible-jump";
import { cloudEndpoint } from "./cloud-endpoint";
import { CLEAN_UP_AFTER, removedLine, sharedControlPath, sshReuseEnv, vmInventory } from "./ansible-run";
import { AnsibleOutputWatcher } from "./ansible-output";
import { ansibleStrategyFor, MITOGEN_INTERPRETER, type AnsibleStrategy } from "./ansible-strategy";
import { defaultHostExecutor, effectFence, executorFor, hostOperatorSettings, type HostOperatorDeps } from "./deps";
import { PREPARE_FAILED, prepareRunDir, prepareThenPlayArgv, removeDir, runDirName, scanKeysAndWriteInventory, writeHostFile } from "./remote-files";
import { unsafeExtraVarsYaml } from "./unsafe-vars";
import { runVmCli, type VmCliInfo } from "./vm-cli";
import { args, SETTING_VARS, type Args } from "./ansible-playbook-args";

/** The Python the targets run: named for Mitogen (its own discovery is slow), Ansible's discovery otherwise. */
const interpreterFor = (strategy: AnsibleStrategy | null) => (strategy?.strategy === "mitogen_linear" ? MITOGEN_INTERPRETER : "auto_silent");

/** Run ansible-playbook on the host against a VM (or the host itself), output streamed, failing task reported. */
export function createAnsiblePlaybookOperator(deps: HostOperatorDeps = {}): Operator<Args> {
  const exFor = deps.executor ?? defaultHostExecutor;
  return {
    name: "ansible_playbook",
    description: "Run an Ansible playbook on the host against a VM or the host itself (extra vars as an !unsafe file, settings from configuration); output the play recap",
    args,
    hostScoped: true,
    async run(a, ctx) {
      // A routed host reached through a jump holds the VMs; the play runs on the configured host
      // (playbooks, vault, inventory directory) and its ssh goes through the routed host.
      const jump = ctx.host?.jump;
      const vmEx = executorFor(ctx, exFor);
      const ex = jump ? exFor(ctx) : vmEx;
      const s = hostOperatorSettings(ctx.config.vm);
      const cloud = ctx.host?.cloud;
      // A cloud host's host side is the configured host (its inventory directory: the products'
      // records, the CA roots): on_host plays there are local, never on the bastion.
      if (cloud && a.hosts) throw new NonRetryableError(`host '${ctx.host!.name}' is a cloud host: its plays are for its VMs (give vm) or its host side (on_host)`);
      const hostJump = cloud ? undefined : jump;
      const key = a.private_key ?? cloud?.keyPath ?? s.sshPrivkey;
      if (!posix.isAbsolute(a.playbook) && posix.normalize(a.playbook).split("/")[0] === "..") {
        throw new NonRetryableError(`playbook path ${JSON.stringify(a.playbook)} leaves SVC_PLAYBOOKS_DIR; give an absolute path to use another place`);
      }
      const playbook = posix.isAbsolute(a.playbook) ? a.playbook : posix.join(ctx.config.playbooksDir, a.playbook);
      const trusted = Object.fromEntries(a.settings.map((k) => [k, SETTING_VARS[k](ctx.config)]));
      const extraVars = unsafeExtraVarsYaml(a.extra_vars, trusted);
      // A cloud instance: the endpoint and keys vm_wait_ssh pinned, given or read back where it pinned them.
      const given = a.vm_endpoint?.host_keys.length ? a.vm_endpoint : null;
      const ep = cloud && a.vm && !given ? await cloudEndpoint(a.vm, ctx, ex) : given;
      const endpoint = ep ? [{ name: a.vm!, host: ep.ssh_host, port: ep.ssh_port, user: ep.ssh_user }] : null;
      // Plays on the host itself are local and short: Ansible's own strategy; plays on VMs take the
      // configured one (a probe, once per host).
      const strategyP = a.on_host ? Promise.resolve(null) : ansibleStrategyFor(ex, ctx.config.ansibleStrategy, ctx.signal);
      // A VM's endpoint and keys given, on a host reached directly: the run's directory, with the keys
      // and the inventory (which names the strategy's Python), is made by the play's own command: one
      // host command in all. Otherwise the VM's endpoint, the run's directory and the strategy are
      // asked at once, and the play is a command of its own.
      const pinned = ep && !jump ? { keys: ep.host_keys, strategy: await strategyP } : null;
      const pinnedFiles = (d: string): Record<string, string> => ({
        known_hosts: `${pinned!.keys.join("\n")}\n`,
        "inventory.json": JSON.stringify(vmInventory(d, endpoint!, key, interpreterFor(pinned!.strategy)), null, 2),
      });
      const [info, prepared, chosen] = await Promise.allSettled([
        a.vm && !endpoint ? runVmCli<VmCliInfo>(vmEx, s, ctx, ["info", "vm", a.vm]) : Promise.resolve(null),
        pinned ? Promise.resolve(runDirName(ctx.config.inventoryDir)) : prepareRunDir(ex, playbook, ctx.config.inventoryDir, extraVars, ctx),
        strategyP,
      ]);
      if (prepared.status === "rejected") throw prepared.reason;
      const dir = prepared.value;
      // The play's own shell removes the directory (it holds the extra vars, which may be secrets) when
      // the play ends, however it ends; this task removes it only when that shell may not have.
      let removed = false;
      try {
        let hosts = a.hosts ?? endpoint ?? [];
        if (info.status === "rejected") throw info.reason;
        if (info.value) {
          const vm = info.value;
          if (!vm.ssh_host || !vm.ssh_port) throw new Error(`VM '${a.vm}' has no SSH endpoint yet (state ${vm.state}); run vm_wait_ssh first`);
          hosts = [{ name: a.vm!, host: vm.ssh_host, port: vm.ssh_port, user: vm.ssh_user ?? "root" }];
        }
        if (chosen.status === "rejected") throw chosen.reason;
        const strategy = chosen.value;
        const interpreter = interpreterFor(strategy);
        const controlPath = pinned ? sharedControlPath(ctx.config.inventoryDir, hosts[0]!, pinned.keys) : null;
        if (pinned) {
          ctx.log(`host keys of ${a.vm} as vm_wait_ssh pinned them (${hosts[0]!.host}:${hosts[0]!.port})`, "system");
          if (controlPath) ctx.log(`SSH connection shared with ${a.vm}'s next play for 30 s (control socket ${controlPath})`, "system");
        } else if (a.on_host || jump) {
          const inventory = a.on_host
            ? hostJump
              ? await jumpHostInventory(ex, { ...ctx.host!, jump: hostJump }, dir, ctx)
              : { all: { hosts: { localhost: { ansible_connection: "local", ansible_python_interpreter: "auto_silent" } } } }
            : cloud
              ? await cloudJumpInventory(ex, jump!, dir, hosts, ep!.host_keys, key, ctx, interpreter)
              : await jumpVmInventory(ex, vmEx, jump!, dir, hosts, key, ctx, interpreter);
          await writeHostFile(ex, `${dir}/inventory.json`, JSON.stringify(inventory, null, 2), ctx);
        } else {
          await scanKeysAndWriteInventory(ex, dir, hosts, JSON.stringify(vmInventory(dir, hosts, key, interpreter), null, 2), ctx);
        }
        const vault = ctx.config.vaultPasswordFile && (!a.on_host || a.settings.includes("secrets_file"));
        const play = [
          "ansible-playbook",
          "-i",
          `${dir}/inventory.json`,
          "-e",
          `@${dir}/extra-vars.yml`,
          ...(vault ? ["--vault-password-file", ctx.config.vaultPasswordFile!] : []),
          ...(a.check ? ["--check", "--diff"] : []),
          // `--` so a playbook path that looks like an option is still a path.
          "--",
          playbook,
        ];
        const argv = pinned ? prepareThenPlayArgv(playbook, ctx.config.inventoryDir, dir, pinnedFiles(dir), play) : ["sh", "-c", CLEAN_UP_AFTER, "sh", dir, ...play];
        let unprepared = false;
        const viaJump = a.on_host ? hostJump : jump;
        const via = viaJump ? ` via host ${ctx.host!.name} (${viaJump.user}@${viaJump.address}:${viaJump.port}) from ${ex.target}` : "";
        const targets = a.on_host
          ? hostJump
            ? `the host ${ctx.host!.name}`
            : cloud
              ? `the host side of cloud host ${ctx.host!.name} (${ex.target})`
              : `the host (${ex.target})`
          : hosts.map((h) => `${h.name} (${h.host}:${h.port})`).join(", ");
        const where = `${targets}${via}`;
        ctx.log(`ansible-playbook ${playbook} on ${where}${a.check ? " [check mode]" : ""}`, "system");
        if (strategy) ctx.log(`ansible strategy ${strategy.strategy}: ${strategy.why}`, "system");
        const w = new AnsibleOutputWatcher();
        const r = await ex.run(argv, {
          env: {
            ANSIBLE_NOCOLOR: "1",
            ANSIBLE_TIMEOUT: "60",
            ANSIBLE_FORCE_COLOR: "0",
            ANSIBLE_RETRY_FILES_ENABLED: "0",
            // What a play gives its DAG (set_stats), printed for the watcher as the task's output `stats`.
            ANSIBLE_SHOW_CUSTOM_STATS: "1",
            ANSIBLE_HOST_KEY_CHECKING: "True",
            ANSIBLE_LOCAL_TEMP: `${dir}/tmp`,
            ...sshReuseEnv(dir, controlPath ?? undefined),
            ...(strategy ? { ANSIBLE_STRATEGY: strategy.strategy } : {}),
            PYTHONUNBUFFERED: "1",
          },
          // Relative paths a playbook or its ansible.cfg names resolve under the playbooks directory.
          cwd: posix.isAbsolute(a.playbook) ? posix.dirname(playbook) : ctx.config.playbooksDir,
          timeoutMs: a.timeout_s * 1000,
          signal: ctx.signal,
          ...(pinned ? { stdin: extraVars } : {}),
          // The play is the effect: a retry that finds the previous try's play still running waits and adopts its result.
          fence: effectFence(ctx),
          onStdout: (l) => (w.line(l), ctx.log(l, "stdout")),
          onStderr: (l) => {
            if (l === removedLine(dir)) return void (removed = true);
            if (l === `${PREPARE_FAILED}${dir}`) unprepared = true;
            w.line(l);
            ctx.log(l, "stderr");
          },
        });
        const totals = w.totals();
        // The one command made nothing, or removed what it made, before it failed.
        if (pinned && r.code === 66 && w.tail.includes(`playbook ${playbook} not found`)) {
          removed = true;
          throw new NonRetryableError(`playbook ${playbook} not found on ${ex.target}`);
        }
        if (unprepared) {
          removed = true;
          throw new Error(`cannot prepare ${dir} on ${ex.target}: ${w.tail.join("\n").trim()}`);
        }
        if (r.code !== 0) {
          const f = w.failures[w.failures.length - 1];
          const where = f ? `task '${f.task}' failed on ${f.host}: ${f.detail}` : (w.tail.filter((l) => /ERROR!|error/i.test(l)).pop() ?? `exit ${r.code}`);
          ctx.log(`ansible-playbook failed: ${where}`, "system");
          const msg = `ansible-playbook ${a.playbook} failed (exit ${r.code}): ${where}`;
          // Exit 1 with ERROR! and no task: a missing or broken playbook, which a retry cannot fix.
          if (!f && /ERROR!/.test(w.tail.join("\n"))) throw new NonRetryableError(msg);
          throw new Error(msg);
        }
        return {
          playbook: a.playbook,
          hosts: a.on_host ? [hostJump ? ctx.host!.name : "localhost"] : hosts.map((h) => h.name),
          check: a.check,
          ok: totals.ok ?? 0,
          changed: totals.changed ?? 0,
          failed: totals.failed ?? 0,
          unreachable: totals.unreachable ?? 0,
          skipped: totals.skipped ?? 0,
          ...(w.stats ? { stats: w.stats } : {}),
        };
      } finally {
        if (!removed) await removeDir(ex, dir);
      }
    },
  };
}
