import { validateParams } from "@svc/dags";
import type { EngineApi } from "@svc/engine";
import { cpuCount, dfArgv, dfFreeGb, memAvailableMb, pathAndParents } from "@svc/hosts/capacity";
import type { VmCliInfo, VmTools } from "./vm-access";

export interface PreflightCheck {
  check: string;
  ok: boolean;
  detail: string;
}

async function probe(vms: VmTools, argv: string[]): Promise<string | undefined> {
  const r = await vms.exec(argv).catch(() => undefined);
  return r && r.code === 0 ? r.stdout : undefined;
}

/** Free space (GiB) of `dir`, or of its nearest existing parent when the first VM has not created it yet. */
async function freeSpace(vms: VmTools, dir: string): Promise<{ dir: string; freeGb: number | null }> {
  for (const d of pathAndParents(dir)) {
    const df = await probe(vms, dfArgv(d));
    if (df) return { dir: d, freeGb: dfFreeGb(df) };
  }
  return { dir, freeGb: null };
}

/** Host resources against the request: memory available, CPUs (over-commit is only noted), disk space for the disks. */
async function resourceChecks(vms: VmTools, conf: Record<string, unknown>): Promise<PreflightCheck[]> {
  const out: PreflightCheck[] = [];
  const availMb = memAvailableMb(await probe(vms, ["cat", "/proc/meminfo"]));
  const wantMb = Number(conf.memory_mb ?? 0);
  out.push(
    availMb !== null
      ? { check: "memory", ok: availMb >= wantMb, detail: `${wantMb} MiB requested, ${availMb} MiB available` }
      : { check: "memory", ok: false, detail: "could not read /proc/meminfo on the host" },
  );
  const cpus = cpuCount(await probe(vms, ["nproc"]));
  const wantCpus = Number(conf.cpus ?? 1);
  out.push({
    check: "cpus",
    ok: cpus !== null,
    detail: cpus !== null ? `${wantCpus} vCPU requested, host has ${cpus}${wantCpus > cpus ? " (over-committed)" : ""}` : "could not count host CPUs",
  });
  const { dir, freeGb } = await freeSpace(vms, vms.disksDir);
  const wantGb = Number(conf.disk_gb ?? 0);
  const where = dir === vms.disksDir ? dir : `${dir} (where ${vms.disksDir} will be created)`;
  out.push(
    freeGb !== null
      ? { check: "disk", ok: freeGb >= wantGb, detail: `${wantGb} GiB requested, ${freeGb} GiB free in ${where}` }
      : { check: "disk", ok: false, detail: `could not read free space of ${vms.disksDir}` },
  );
  return out;
}

/** The create params against the VM DAG, defaults applied (as given when they are invalid). */
export async function checkParams(
  api: EngineApi,
  dagId: string,
  conf: Record<string, unknown>,
  settings: Record<string, string>,
): Promise<{ check: PreflightCheck; resolved: Record<string, unknown> }> {
  const def = (await api.getDagDefinition(dagId)).definition;
  const v = validateParams(def, { action: "create", ...conf }, settings);
  return v.ok
    ? { check: { check: "params", ok: true, detail: `valid for ${dagId}` }, resolved: v.params }
    : { check: { check: "params", ok: false, detail: v.errors.map((e) => `conf.${e.field}: ${e.message}`).join("; ") }, resolved: { action: "create", ...conf } };
}

/**
 * Would create_vm succeed? Checks, without changing anything: the params against the VM DAG,
 * the host answering, the hypervisor answering, the image present, the name free, resources.
 */
export async function preflightVm(
  api: EngineApi,
  vms: VmTools,
  dagId: string,
  conf: Record<string, unknown>,
  settings: Record<string, string>,
): Promise<{ checks: PreflightCheck[]; conf: Record<string, unknown> }> {
  const params = await checkParams(api, dagId, conf, settings);
  const checks: PreflightCheck[] = [params.check];
  const resolved = params.resolved;
  const reachable = (await vms.exec(["true"]).catch(() => undefined))?.code === 0;
  checks.push({ check: "host_reachable", ok: reachable, detail: reachable ? `${vms.target} answers` : `${vms.target} does not answer` });
  if (!reachable) return { checks, conf: resolved };
  let list: VmCliInfo[] | undefined;
  try {
    list = await vms.vmCli<VmCliInfo[]>(["list", "vm"]);
    checks.push({ check: "hypervisor", ok: true, detail: `${list.length} VM(s) defined` });
  } catch (e) {
    checks.push({ check: "hypervisor", ok: false, detail: e instanceof Error ? e.message : String(e) });
  }
  const image = typeof resolved.image === "string" ? resolved.image : undefined;
  if (image) {
    const images = await vms.vmCli<{ name: string }[]>(["list", "images"]).catch(() => undefined);
    checks.push(
      images
        ? {
            check: "image",
            ok: images.some((i) => i.name === image),
            detail: images.some((i) => i.name === image) ? `image '${image}' present` : `image '${image}' not found; present: ${images.map((i) => i.name).join(", ") || "none"}`,
          }
        : { check: "image", ok: false, detail: "could not list images" },
    );
  }
  const name = typeof resolved.vm_name === "string" ? resolved.vm_name : "";
  if (list && name) {
    const taken = list.some((x) => x.name === name);
    checks.push({ check: "name_free", ok: !taken, detail: taken ? `a VM named '${name}' already exists` : `no VM named '${name}'` });
  }
  checks.push(...(await resourceChecks(vms, resolved)));
  return { checks, conf: resolved };
}
