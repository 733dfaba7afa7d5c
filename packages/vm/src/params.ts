import { VmInputError } from "./errors";
import { parseForward } from "./forwards";
import { assertNetName } from "./names";
import { assertIsoPath, assertMac, assertMacsForNets, assertOutbound } from "./spec-check";
import type { PortForwardSpec } from "./types";

/** The `-P key=value` parameters of `create vm`, parsed. */
export interface VmParams {
  memoryMb: number;
  cpus: number;
  disksGb: number[];
  nets: string[];
  /** A bootable ISO on this host (`iso=/path`). */
  iso?: string;
  /** One MAC per network (`macs=[52:54:00:..,..]`). */
  macs?: string[];
  /** Guest ports forwarded to 127.0.0.1 (`forwards=[tcp/53,udp/53]`, user-mode networking). */
  forwards?: PortForwardSpec[];
  /** Guest-initiated connections out of the user-mode NIC (`outbound=true`; default false). */
  userNetOutbound?: boolean;
}

export const DEFAULT_PARAMS: VmParams = { memoryMb: 512, cpus: 1, disksGb: [], nets: ["user"] };
const KEYS = ["memory", "numcpus", "disks", "nets", "iso", "macs", "forwards", "outbound"] as const;

function list(v: string): string[] {
  const inner = v.startsWith("[") && v.endsWith("]") ? v.slice(1, -1) : v;
  return inner
    .split(",")
    .map((s) => s.trim().replace(/^['"]|['"]$/g, ""))
    .filter((s) => s !== "");
}

function int(key: string, v: string, min: number, max: number): number {
  if (!/^\d+$/.test(v)) throw new VmInputError(`-P ${key}: expected a whole number, got ${JSON.stringify(v).slice(0, 40)}`);
  const n = Number(v);
  if (n < min || n > max) throw new VmInputError(`-P ${key}: ${n} is out of range ${min}..${max}`);
  return n;
}

/** Parse kcli-style parameters (`memory=2048`, `numcpus=2`, `disks=[20,10]`, `nets=[user]`, `iso=/x.iso`, `macs=[..]`, `forwards=[tcp/53]`, `outbound=true`). */
export function parseVmParams(pairs: readonly string[]): VmParams {
  const p: VmParams = { ...DEFAULT_PARAMS, disksGb: [], nets: [...DEFAULT_PARAMS.nets] };
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    const key = eq > 0 ? pair.slice(0, eq) : "";
    const value = eq > 0 ? pair.slice(eq + 1) : "";
    switch (key) {
      case "memory":
        p.memoryMb = int(key, value, 64, 1_048_576);
        break;
      case "numcpus":
        p.cpus = int(key, value, 1, 256);
        break;
      case "disks":
        p.disksGb = list(value).map((d) => int("disks", d.replace(/^size=/, ""), 1, 65_536));
        break;
      case "nets": {
        const nets = list(value);
        if (nets.length === 0) throw new VmInputError("-P nets: give at least one network, e.g. nets=[user]");
        p.nets = nets.map(assertNetName);
        break;
      }
      case "iso":
        p.iso = assertIsoPath(value);
        break;
      case "macs":
        p.macs = list(value).map(assertMac);
        break;
      case "forwards":
        p.forwards = list(value).map(parseForward);
        break;
      case "outbound":
        if (value !== "true" && value !== "false") throw new VmInputError(`-P outbound: expected true or false, got ${JSON.stringify(value).slice(0, 40)}`);
        if (value === "true") p.userNetOutbound = true;
        break;
      default:
        throw new VmInputError(`unknown parameter ${JSON.stringify(pair).slice(0, 60)}: use ${KEYS.map((k) => `${k}=...`).join(", ")}`);
    }
  }
  // Checked once every parameter is read: -P macs may come before -P nets.
  if (p.macs) assertMacsForNets(p.macs, p.nets);
  if (p.userNetOutbound) assertOutbound(p.nets);
  return p;
}
