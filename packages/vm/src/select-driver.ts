import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import type { HostExecutor } from "@svc/host";
import { KcliDriver } from "./kcli/driver";
import { LibvirtDriver } from "./libvirt/driver";
import type { VmSettings } from "./settings";
import type { VmDriver } from "./types";

/** Whether an executable `bin` is on `path` (a PATH value). */
export function onPath(bin: string, path: string): boolean {
  return path.split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, bin), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** The configured driver; `auto` picks kcli when it is on `path` (the caller's PATH), else libvirt. */
export function createVmDriver(settings: VmSettings, ex: HostExecutor, path: string): VmDriver {
  const kind = settings.driver === "auto" ? (onPath("kcli", path) ? "kcli" : "libvirt") : settings.driver;
  return kind === "kcli" ? new KcliDriver(ex) : new LibvirtDriver({ ex, settings });
}
