import type { z } from "zod";
import type { Operator, OperatorContext } from "../types";
import { NonRetryableError } from "@svc/errors";
import { actedOnHost, hostOperatorSettings, defaultHostExecutor, effectFence, executorFor, type HostOperatorDeps } from "./deps";
import { cloudCreate, cloudDelete, cloudInfo, cloudVmOutput } from "./cloud-vm";
import { ForeignVmError, runVmCli, vmOutput, type VmCliInfo } from "./vm-cli";
import { createArgs, deleteArgs, nameArgs, type CreateArgs, type DeleteArgs } from "./vm-args";

/** vm_create, vm_delete and vm_info: the VM CLI on the host, reached over SSH; on a cloud host, its driver. */
export function createVmOperators(deps: HostOperatorDeps = {}): Operator[] {
  const exFor = deps.executor ?? defaultHostExecutor;
  const settings = (ctx: OperatorContext) => hostOperatorSettings(ctx.config.vm);

  const vmCreate: Operator<CreateArgs> = {
    name: "vm_create",
    description:
      "Create a VM on the host with the VM CLI from an image or a bootable ISO, MACs optionally pinned, guest ports forwarded to 127.0.0.1 (idempotent: the same spec again succeeds); output name, state, ssh_host, ssh_port, forwards, ip, image, iso, macs, memory_mb, cpus, host (the host of the inventory it is on)",
    args: createArgs,
    hostScoped: true,
    async run(a, ctx) {
      if (ctx.host?.cloud) return cloudCreate(a, ctx, ctx.host.cloud, exFor(ctx));
      if (a.allow_from.length)
        throw new NonRetryableError(
          `allow_from ${JSON.stringify(a.allow_from)} opens a cloud VM's firewall; host '${ctx.host?.name ?? "local"}' is a libvirt host, where a product's ports reach only its network or 127.0.0.1 forwards: leave allow_from out, or pick a cloud host`,
        );
      if (a.size) {
        const where = ctx.host ? `host '${ctx.host.name}'` : "the configured host";
        throw new NonRetryableError(
          `size '${a.size}' names a cloud size, but ${where} is a libvirt host: its VMs are sized by cpus and memory_mb (drop size, or put the VM on a cloud host)`,
        );
      }
      const s = settings(ctx);
      const key = a.ssh_pubkey_path ?? s.sshPubkey;
      const args = [
        "create",
        "vm",
        a.name,
        ...(a.image ? ["-i", a.image] : []),
        ...(a.iso ? ["-P", `iso=${a.iso}`] : []),
        "-P",
        `memory=${a.memory_mb}`,
        "-P",
        `numcpus=${a.cpus}`,
        ...(a.disks_gb.length ? ["-P", `disks=[${a.disks_gb.join(",")}]`] : []),
        "-P",
        `nets=[${a.nets.join(",")}]`,
        ...(a.macs ? ["-P", `macs=[${a.macs.join(",")}]`] : []),
        ...(a.forward_ports.length ? ["-P", `forwards=[${a.forward_ports.join(",")}]`] : []),
        ...(a.user_net_outbound ? ["-P", "outbound=true"] : []),
        ...(key ? ["--ssh-key", key] : []),
        ...(a.wait ? ["--wait", "--wait-timeout", String(a.wait_timeout_s)] : []),
        ...(a.adopt === "dag" ? ["--adopt-same-dag"] : []),
        // Recorded in the domain's metadata: a later create adopts the VM only for this run.
        "--owner-dag",
        ctx.dagId,
        "--owner-run",
        ctx.runId,
        "--owner-task",
        ctx.taskId,
      ];
      const ex = executorFor(ctx, exFor);
      const on = ctx.host ? `host ${ctx.host.name} (${ex.target})` : ex.target;
      ctx.log(`creating VM ${a.name} from ${[a.image ? `image ${a.image}` : "", a.iso ? `ISO ${a.iso}` : ""].filter(Boolean).join(" and ")} on ${on}`, "system");
      const info = await runVmCli<VmCliInfo>(ex, s, ctx, args, (a.wait_timeout_s + 300) * 1000, effectFence(ctx));
      const had = info.adopted ? `VM ${a.name} was made by another run of this DAG with the same spec: adopted` : `VM ${a.name} already existed with the same spec`;
      ctx.log(info.created ? `created VM ${a.name} (${info.state})` : `${had} (${info.state})`, "system");
      return { ...vmOutput(info), host: actedOnHost(ctx) };
    },
  };

  const vmDelete: Operator<DeleteArgs> = {
    name: "vm_delete",
    description: "Delete a VM svc created and its disks on the host (a missing VM is a success with a note; a domain svc did not create is refused unless force_foreign)",
    args: deleteArgs,
    hostScoped: true,
    async run(a, ctx) {
      if (ctx.host?.cloud) return cloudDelete(a.name, a.force_foreign, ctx, ctx.host.cloud, exFor(ctx));
      const argv = ["delete", "vm", a.name, "-y", ...(a.force_foreign ? ["--force-foreign"] : [])];
      const r = await runVmCli<{ name: string; deleted: boolean; note?: string }>(executorFor(ctx, exFor), settings(ctx), ctx, argv, undefined, effectFence(ctx)).catch(
        (e: unknown) => {
          if (e instanceof ForeignVmError) throw new NonRetryableError(e.message.replace("pass --force-foreign to", "set force_foreign: true in the task's args to"));
          throw e;
        },
      );
      ctx.log(r.deleted ? `deleted VM ${a.name}` : (r.note ?? `VM ${a.name} did not exist`), "system");
      return { name: r.name, deleted: r.deleted, ...(r.note ? { note: r.note } : {}), host: actedOnHost(ctx) };
    },
  };

  const vmInfo: Operator<z.infer<typeof nameArgs>> = {
    name: "vm_info",
    description: "Report a VM: name, state, ssh_host, ssh_port, ip, image, memory_mb, cpus, host (the host of the inventory it is on)",
    args: nameArgs,
    hostScoped: true,
    async run(a, ctx) {
      if (ctx.host?.cloud) return cloudVmOutput(await cloudInfo(a.name, ctx, ctx.host.cloud), ctx.host.name);
      return { ...vmOutput(await runVmCli<VmCliInfo>(executorFor(ctx, exFor), settings(ctx), ctx, ["info", "vm", a.name])), host: actedOnHost(ctx) };
    },
  };

  return [vmCreate, vmDelete, vmInfo];
}
