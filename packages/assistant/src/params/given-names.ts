import { brokenRule, inputRequest, valueHasShellSyntax } from "./given-value-rules";
import { rawWords, type RawWord } from "./raw-words";
import type { InputRequest } from "../types";

/** Word sequences after which the next word is the name the user gives (en, es, de, fr). */
const NAME_MARKERS: string[][] = [
  "called",
  "named",
  "name it",
  "call it",
  "with name",
  "with the name",
  "name is",
  "name should be",
  "hostname",
  "llamada",
  "llamado",
  "llamadas",
  "llamados",
  "con nombre",
  "con el nombre",
  "de nombre",
  "nombre",
  "namens",
  "mit namen",
  "mit dem namen",
  "genannt",
  "heißt",
  "heisst",
  "name",
  "appelée",
  "appelé",
  "appelee",
  "appele",
  "nommée",
  "nommé",
  "nommee",
  "nomme",
  "du nom de",
  "avec le nom",
  "se llame",
  "se llama",
  "llamala",
  "llamalo",
  "appelle-la",
  "appelle-le",
  "nomme-la",
  "nomme-le",
  "nenne sie",
  "nenne es",
  "nenne",
].map((m) => m.split(" "));

const VM_NOUNS = new Set(["vm", "vms", "machine", "server", "instance", "box", "guest", "host", "maschine", "máquina", "maquina", "machine", "serveur", "servidor"]);
const CLUSTER_NOUNS = new Set(["cluster", "clusters", "openshift", "ocp", "okd", "sno", "clúster"]);
/** After a marker these are not names ("named after the project", "call it a day"). */
const NOT_NAMES = new Set(["after", "like", "a", "an", "the", "it", "something", "whatever", "anything", "by", "for", "in", "un", "una", "ein", "eine", "le", "la"]);

/** A name the user gave, as typed, and the field it is for. */
export interface GivenName {
  field: "vm_name" | "cluster_name" | "unknown";
  raw: string;
  /** The accepted value (case folded), when the name follows the rules. */
  value?: string;
  /** Set when the given name breaks a rule: ask again, never coerce. */
  issue?: InputRequest;
  /** The name carries shell syntax: the request is rejected. */
  shell?: boolean;
}

/** Markers that are also ordinary words: without a name after them they say nothing. */
const WEAK_MARKERS = new Set(["name", "nombre", "hostname"]);

const KEY_VALUE = /^(vm_name|vmname|name|hostname|cluster_name|cluster)[=:](.*)$/i;

function fieldFromContext(words: readonly RawWord[], at: number): GivenName["field"] {
  const before = words.slice(Math.max(0, at - 5), at).map((w) => w.lower.replace(/[^\p{L}\p{N}-]/gu, ""));
  for (let k = before.length - 1; k >= 0; k--) {
    if (CLUSTER_NOUNS.has(before[k]!)) return "cluster_name";
    if (VM_NOUNS.has(before[k]!)) return "vm_name";
  }
  return "unknown";
}

export function judge(field: GivenName["field"], raw: string): GivenName {
  if (valueHasShellSyntax(raw)) return { field, raw, shell: true };
  const rule = brokenRule(field === "unknown" ? "vm_name" : field, raw);
  if (rule) return { field, raw, issue: inputRequest(field === "unknown" ? "vm_name" : field, rule, raw) };
  return { field, raw, value: raw.toLowerCase() };
}

const unaccent = (s: string) => s.normalize("NFD").replace(/\p{M}/gu, "");
const MARKERS = NAME_MARKERS.map((m) => m.map(unaccent));
/** Markers after the name: "eine VM, die web01 heißt". */
const AFTER_MARKERS = new Set(["heisst", "heißt", "heist"]);

/** Markers by their first word, longest first. */
const MARKERS_BY_FIRST = new Map<string, string[][]>();
for (const m of [...MARKERS].sort((a, b) => b.length - a.length)) MARKERS_BY_FIRST.set(m[0]!, [...(MARKERS_BY_FIRST.get(m[0]!) ?? []), m]);

function matchMarker(words: readonly RawWord[], i: number): number {
  for (const m of MARKERS_BY_FIRST.get(words[i]?.key ?? "") ?? []) {
    if (m.every((part, k) => words[i + k]?.key === part && !words[i + k]?.quoted)) return m.length;
  }
  return 0;
}

/**
 * The first name the request gives after a marker ("called", "named", "namens", "llamada",
 * "appelée", "name=…"), judged as typed. Undefined when the request names nothing.
 */
export function findGivenName(raw: string): GivenName | undefined {
  const words = rawWords(raw);
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const kv = w.quoted ? null : KEY_VALUE.exec(w.text);
    if (kv && kv[2]) {
      const key = kv[1]!.toLowerCase();
      const field = key.startsWith("cluster") ? "cluster_name" : key === "name" || key === "hostname" ? fieldFromContext(words, i) : "vm_name";
      return judge(field, kv[2]);
    }
    if (i > 0 && AFTER_MARKERS.has(w.key) && !NOT_NAMES.has(words[i - 1]!.lower)) return judge(fieldFromContext(words, i - 1), words[i - 1]!.text);
    const n = matchMarker(words, i);
    if (n === 0) continue;
    const next = words[i + n];
    if (!next) continue;
    const weak = n === 1 && WEAK_MARKERS.has(words[i]!.lower);
    if (!next.quoted && NOT_NAMES.has(next.lower)) {
      if (weak) continue;
      const field = fieldFromContext(words, i);
      const f = field === "unknown" ? "vm_name" : field;
      return {
        field,
        raw: next.text,
        issue: inputRequest(
          f,
          `a name must follow '${words
            .slice(i, i + n)
            .map((x) => x.text)
            .join(" ")}'`,
          next.text,
        ),
      };
    }
    // "name" alone is a marker only when a name-shaped or clearly invalid word follows ("the name of the vm" is not).
    if (words[i]!.lower === "name" && n === 1 && !next.quoted && /^(of|for|is|the|and|to)$/.test(next.lower)) continue;
    const field = fieldFromContext(words, i);
    // "called web 01": a number right after the name (and not a count of something) is part of it.
    const after = words[i + n + 1];
    const unit = words[i + n + 2];
    if (!next.quoted && after && !after.quoted && /^\d+$/.test(after.text) && !(unit && RESOURCE_WORDS.test(unit.lower))) {
      return judge(field, `${next.text} ${after.text}`);
    }
    return judge(field, next.text);
  }
  return undefined;
}

/** Words that make a number a count or a size, not part of a name ("called web01 2 cpus"). */
const RESOURCE_WORDS = /^(v?cpus?|vcores?|cores?|c|g|gb|gib|gigs?|m|mb|mib|megs?|t|tb|ram|mem(ory)?|disks?|nodes?|workers?|masters?|x|times|vms?|machines?)[,.]?$/;

/** A word right after a VM noun that is plainly not a name but a path or an option ("delete vm ../x", "vm -oX"). */
export function findSuspectAfterNoun(raw: string): GivenName | undefined {
  const words = rawWords(raw);
  for (let i = 0; i + 1 < words.length; i++) {
    if (!VM_NOUNS.has(words[i]!.lower)) continue;
    const next = words[i + 1]!;
    // Size slang ("4c/8g", "2/4096") is not a name; paths, options and quoted phrases are given names.
    if (/^\d+(\.\d+)?[a-z]*\/\d/i.test(next.text)) continue;
    if (next.quoted || /^-|[/\\]|\.\./.test(next.text)) return judge("vm_name", next.text);
  }
  return undefined;
}

const IMAGE_MARKERS = new Set(["image", "from", "using", "imagen", "abbild", "image:", "depuis", "desde", "aus", "base"]);

/** An image given as a path or URL ("from https://…/x.qcow2", "image ./disk.img"): asked again, never dropped for the default. */
export function findGivenImagePath(raw: string): GivenName | undefined {
  const words = rawWords(raw);
  for (let i = 0; i + 1 < words.length; i++) {
    if (!IMAGE_MARKERS.has(words[i]!.lower) && !/^image[=:]/i.test(words[i]!.text)) continue;
    const kv = /^image[=:](.+)$/i.exec(words[i]!.text);
    const value = kv ? kv[1]! : words[i + 1]!.text;
    if (!/[/\\]|:\/\/|\.(qcow2|img|iso|raw|vmdk)$/i.test(value)) continue;
    const rule = brokenRule("image", value) ?? "image must be an image name from the host's images directory, not a path or URL";
    return { field: "vm_name", raw: value, issue: inputRequest("image", rule, value) };
  }
  return undefined;
}

/**
 * The word as typed that a name read from the folded text came from ("ｗｅｂ－７" for web-7), when it
 * differs from the name: the name was folded, so it must be judged as typed instead of used.
 */
export function foldedName(raw: string, value: string, field: GivenName["field"]): GivenName | undefined {
  for (const w of rawWords(raw)) {
    if (w.quoted || w.text.toLowerCase() === value) continue;
    const folded = w.key.replace(/ß/g, "ss");
    if (folded === value) return judge(field, w.text);
  }
  return undefined;
}
