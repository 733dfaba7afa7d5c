import { accessSync, constants, readFileSync } from "node:fs";

/**
 * kvm when /dev/kvm is read-write for us and the CPU advertises VT-x/AMD-V; otherwise qemu
 * (TCG, software emulation). A /dev/kvm without those flags (nested setups) hangs guests.
 */
export function detectVirtType(): "kvm" | "qemu" {
  try {
    accessSync("/dev/kvm", constants.R_OK | constants.W_OK);
    const flags = readFileSync("/proc/cpuinfo", "utf8");
    return /\b(vmx|svm)\b/.test(flags) ? "kvm" : "qemu";
  } catch {
    return "qemu";
  }
}
