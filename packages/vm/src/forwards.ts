import { VmInputError } from "./errors";
import type { PortForwardSpec } from "./types";

const FORM = /^(tcp|udp)\/(\d{1,5})$/;

/** `tcp/53` → { proto: "tcp", guestPort: 53 }; anything else is refused with the form expected. */
export function parseForward(text: string): PortForwardSpec {
  const m = FORM.exec(text);
  const port = m ? Number(m[2]) : NaN;
  if (!m || port < 1 || port > 65535) {
    throw new VmInputError(`forward ${JSON.stringify(text).slice(0, 40)}: expected PROTO/PORT with PROTO tcp or udp and PORT 1..65535, e.g. tcp/636`);
  }
  return { proto: m[1] as "tcp" | "udp", guestPort: port };
}

/** The canonical text of a forward, as the CLI takes it. */
export const forwardText = (f: PortForwardSpec): string => `${f.proto}/${f.guestPort}`;

/**
 * Check a VM's forwards: user-mode networking only, each once, and never SSH's tcp/22 (always
 * forwarded). Returned sorted, so the same set in any order is the same VM.
 */
export function assertForwards(forwards: readonly PortForwardSpec[], nets: readonly string[]): PortForwardSpec[] {
  if (forwards.length === 0) return [];
  if (!nets.includes("user")) throw new VmInputError("forwards need user-mode networking (nets=[user]); VMs on libvirt networks are reached at their own address");
  if (forwards.length > 32) throw new VmInputError(`forwards: at most 32, got ${forwards.length}`);
  const seen = new Set<string>();
  for (const f of forwards) {
    const key = forwardText(f);
    if (f.proto === "tcp" && f.guestPort === 22) throw new VmInputError("forwards: tcp/22 is SSH's, forwarded already");
    if (seen.has(key)) throw new VmInputError(`forwards: ${key} is given twice`);
    seen.add(key);
  }
  return [...forwards].sort((a, b) => a.guestPort - b.guestPort || a.proto.localeCompare(b.proto));
}
