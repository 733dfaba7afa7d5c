import { NUMBER_WORDS as ENGLISH_NUMBER_WORDS } from "./value-extractors";

/**
 * A small grammar for machine sizes: "16 gigs", "2gb", "1.5 GB", "4096MB", "1 TiB", "4c/8g",
 * "2/4/40", "cpus=2 mem=2048", "8 GB per node", "2 to 4 cpus" (a range: asked, not guessed).
 * Amounts convert to the catalogue's units: memory in MiB, disk in GiB (a GB counts as a GiB,
 * as operators mean it), CPUs as a count.
 */

/** What a size grammar read; `ranges` names fields given as a range rather than one value. */
export interface SizeValues {
  cpus?: number;
  memory_mb?: number;
  disk_gb?: number;
  ranges: { field: "cpus" | "memory_mb" | "disk_gb"; given: string }[];
}

/** The English number words, and the small ones of Spanish, German and French. */
const NUMBER_WORDS: Record<string, number> = {
  ...ENGLISH_NUMBER_WORDS,
  dos: 2,
  cuatro: 4,
  ocho: 8,
  zwei: 2,
  vier: 4,
  acht: 8,
  deux: 2,
  quatre: 4,
  huit: 8,
  un: 1,
  una: 1,
  ein: 1,
  eine: 1,
  une: 1,
};

type Unit = "m" | "g" | "t" | "cpu";
const UNIT_WORDS: Record<string, Unit> = {
  m: "m",
  mb: "m",
  mib: "m",
  meg: "m",
  megs: "m",
  mo: "m",
  megabyte: "m",
  megabytes: "m",
  g: "g",
  gb: "g",
  gib: "g",
  gig: "g",
  gigs: "g",
  giga: "g",
  gigas: "g",
  go: "g",
  gigabyte: "g",
  gigabytes: "g",
  gibibyte: "g",
  t: "t",
  tb: "t",
  tib: "t",
  to: "t",
  tera: "t",
  terabyte: "t",
  terabytes: "t",
  c: "cpu",
  cpu: "cpu",
  cpus: "cpu",
  vcpu: "cpu",
  vcpus: "cpu",
  core: "cpu",
  cores: "cpu",
  processor: "cpu",
  processors: "cpu",
  thread: "cpu",
  threads: "cpu",
  kerne: "cpu",
  kernen: "cpu",
  coeurs: "cpu",
  coeur: "cpu",
  nucleos: "cpu",
  procesadores: "cpu",
};
const MEMORY_WORDS = new Set(["ram", "memory", "mem", "memoria", "speicher", "arbeitsspeicher", "memoire"]);
const DISK_WORDS = new Set(["disk", "disks", "storage", "drive", "volume", "hdd", "ssd", "root", "disco", "festplatte", "platte", "disque", "stockage"]);
const CPU_KEYS = new Set(["cpu", "cpus", "vcpu", "vcpus", "cores"]);
const MEM_KEYS = new Set(["mem", "memory", "ram", "memory_mb"]);
const DISK_KEYS = new Set(["disk", "disk_gb", "storage"]);

const SPEC_WORDS = new Set(["with", "vm", "sized", "size", "specs", "spec", "flavor", "flavour", "mit", "con", "avec", "box", "server", "instance", "machine", "="]);

interface Amount {
  value: number;
  unit?: Unit;
  at: number;
  end: number;
  range?: string;
}

const num = (s: string): number | undefined => {
  const n = NUMBER_WORDS[s] ?? Number(s.replace(",", "."));
  return Number.isFinite(n) ? n : undefined;
};

/** Words of the text with "4gb" split into amount and unit ("4", "gb"), "4c/8g" into "4 c / 8 g". */
function lex(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/(\d)([a-z]{1,9})\b/g, "$1 $2")
    .replace(/\//g, " / ")
    .replace(/(\d)\s*-\s*(\d)/g, "$1 - $2")
    .replace(/([a-z_]+)\s*[=:]\s*(\d)/g, "$1 = $2")
    .split(/[\s,;()]+/)
    .filter(Boolean);
}

function memoryMb(value: number, unit: Unit | undefined): number {
  if (unit === "t") return Math.round(value * 1024 * 1024);
  if (unit === "m") return Math.round(value);
  // No unit: a small number is gigabytes ("mem=8"), a large one megabytes ("mem=2048").
  return unit === "g" || value < 256 ? Math.round(value * 1024) : Math.round(value);
}

function diskGb(value: number, unit: Unit | undefined): number {
  if (unit === "t") return Math.round(value * 1024);
  if (unit === "m") return Math.ceil(value / 1024);
  return Math.round(value);
}

/** Reads CPUs, memory and disk from a request's text. */
export function readSizes(text: string): SizeValues {
  const w = lex(text);
  const out: SizeValues = { ranges: [] };
  const amounts: Amount[] = [];
  for (let i = 0; i < w.length; i++) {
    const v = num(w[i]!);
    if (v === undefined || /^\d+\.\d+\.\d/.test(w[i]!)) continue;
    let end = i;
    let range: string | undefined;
    // "2 to 4 cpus", "2-4 cpus", "between 2 and 4 cpus"
    const between = ["between", "entre", "zwischen"].includes(w[i - 1] ?? "");
    const joiner = ["to", "-", "bis", "a"].includes(w[i + 1] ?? "") || (between && ["and", "y", "und", "et"].includes(w[i + 1] ?? ""));
    if (joiner && num(w[i + 2] ?? "") !== undefined && UNIT_WORDS[w[i + 3] ?? ""]) {
      range = `${w[i]} ${w[i + 1]} ${w[i + 2]}`;
      end = i + 2;
    }
    const unit = UNIT_WORDS[w[end + 1] ?? ""];
    amounts.push({ value: range ? num(w[end]!)! : v, unit, at: i, end: unit ? end + 1 : end, range });
    i = unit ? end + 1 : end;
  }
  const set = (field: "cpus" | "memory_mb" | "disk_gb", value: number, a: Amount) => {
    if (out[field] !== undefined) return;
    if (a.range) {
      out.ranges.push({ field, given: a.range });
      return;
    }
    out[field] = value;
  };
  const keyOf = (a: Amount) => (w[a.at - 1] === "=" ? w[a.at - 2] : undefined);
  const near = (a: Amount, words: Set<string>) => {
    const next = w.slice(a.end + 1, a.end + 4).find((x) => !["of", "de", "the", "an", "la", "le", "der", "die", "du", "del"].includes(x));
    return next !== undefined && words.has(next);
  };
  const before = (a: Amount, words: Set<string>) => w.slice(Math.max(0, a.at - 2), a.at).some((x) => words.has(x));
  const slashed = (a: Amount) => w[a.end + 1] === "/" || w[a.at - 1] === "/";
  const loose: Amount[] = [];
  for (const a of amounts) {
    const key = keyOf(a);
    if (key && CPU_KEYS.has(key)) set("cpus", a.value, a);
    else if (key && MEM_KEYS.has(key)) set("memory_mb", key === "memory_mb" ? a.value : memoryMb(a.value, a.unit), a);
    else if (key && DISK_KEYS.has(key)) set("disk_gb", diskGb(a.value, a.unit), a);
    else if (a.unit === "cpu") set("cpus", a.value, a);
    else if (near(a, MEMORY_WORDS) && (a.unit || slashed(a) || a.value >= 1)) set("memory_mb", memoryMb(a.value, a.unit), a);
    else if (near(a, DISK_WORDS)) set("disk_gb", diskGb(a.value, a.unit), a);
    else if ((a.unit || MEMORY_WORDS.has(w[a.at - 1] ?? "")) && before(a, MEMORY_WORDS)) set("memory_mb", memoryMb(a.value, a.unit), a);
    else if ((a.unit || DISK_WORDS.has(w[a.at - 1] ?? "")) && before(a, DISK_WORDS)) set("disk_gb", diskGb(a.value, a.unit), a);
    else if (a.unit || slashed(a)) loose.push(a);
  }
  // A unitless slash group after a spec word ("with 2/4/40") reads cpu / memory (GB) / disk (GB).
  const group = loose.filter((x) => !x.unit && slashed(x));
  if (group.length >= 2 && SPEC_WORDS.has(w[group[0]!.at - 1] ?? "")) {
    set("cpus", group[0]!.value, group[0]!);
    set("memory_mb", memoryMb(group[1]!.value, "g"), group[1]!);
    if (group[2]) set("disk_gb", diskGb(group[2].value, group[2].unit), group[2]);
  }
  // Unlabelled sizes in the order operators write them: memory first, then disk; a size too big for memory is disk.
  for (const a of loose.filter((x) => x.unit)) {
    const gb = a.unit === "t" ? a.value * 1024 : a.unit === "m" ? a.value / 1024 : a.value;
    if (out.memory_mb === undefined && gb <= 512) set("memory_mb", memoryMb(a.value, a.unit), a);
    else set("disk_gb", diskGb(a.value, a.unit), a);
  }
  return out;
}
