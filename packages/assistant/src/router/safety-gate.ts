import { findGivenName, findSuspectAfterNoun } from "../params/given-names";
import type { RouteRefusal } from "../types";

interface GateRule {
  kind: RouteRefusal["kind"];
  pattern: RegExp;
  message: string;
}

const SHELL = "I only run catalogue workflows with validated parameters, never shell text";

/** Commands a line or a ';' may start: the shell words, not English ones. */
const COMMANDS =
  "cat|ls|echo|printf|chmod|chown|chattr|dd|mkfs(?:\\.\\w+)?|python3?|perl|ruby|bash|sh|zsh|systemctl|virsh|iptables|mv|cp|" +
  "pkill|killall|rm|rmdir|shutdown|reboot|halt|poweroff|useradd|passwd|crontab|ssh|scp|touch|curl|wget|nc|ncat|sudo|tee|" +
  "whoami|id|uname|nohup|xargs|mkdir|ln|chroot|mount|umount|base64|eval|exec|source|export|unset|sleep|yes";
const COMMAND_AT = new RegExp(`^(?:${COMMANDS})(?=\\s|$)`, "i");

/** Shell syntax: checked on the text as typed (case and symbols kept). */
const SYNTAX_RULES: GateRule[] = [
  { kind: "unsafe", pattern: new RegExp(`;\\s*(?:[A-Za-z_]\\w*=\\S*\\s+)*(?:${COMMANDS}|[./~])(?=[\\s/]|$)`, "i"), message: `${SHELL}: the request chains a command after ';'.` },
  { kind: "unsafe", pattern: /&&|\|\|/, message: `${SHELL}: the request chains commands ('&&' or '||').` },
  { kind: "unsafe", pattern: /\|\s*[A-Za-z./~]/, message: `${SHELL}: the request pipes into a command.` },
  { kind: "unsafe", pattern: /\$\(|\$\{|`/, message: `${SHELL}: the request contains command substitution.` },
  { kind: "unsafe", pattern: /(^|[\s\w])(\d?>{1,2}|<{1,2})\s*[&\w/~.$-]/, message: `${SHELL}: the request contains a redirection.` },
];

/** Command lines, tools and host paths: checked on the text as typed. */
const SHELL_RULES: GateRule[] = [
  ...SYNTAX_RULES,
  { kind: "unsafe", pattern: /\b(sudo|su\s+-|doas)\b/i, message: "Privilege escalation (sudo) is not something I run." },
  { kind: "unsafe", pattern: /(?<![\w.-])(curl|wget|nc|ncat|netcat|base64|eval|exec)(?![\w.-])/i, message: `${SHELL}: the request names a download or execution tool.` },
  { kind: "unsafe", pattern: /(?:^|[\s"'=])[A-Za-z0-9+/]{24,}={0,2}(?=$|[\s"'])/, message: "The request carries an encoded blob; I do not decode or run payloads." },
  {
    kind: "unsafe",
    pattern: /(^|\s)(\/(etc|dev|var|root|usr|bin|sbin|boot|proc|sys|tmp|home|opt|run)\b|\.ssh\b)/i,
    message: "The request refers to host system paths; workflows take parameters, not paths on the host.",
  },
  {
    kind: "unsafe",
    pattern: new RegExp(`^\\s*(?:please\\s+)?(?:run\\s+|execute\\s+)?(?:${COMMANDS})(?=\\s|$)`, "im"),
    message: `${SHELL}: the request is a shell command.`,
  },
];

const DESTRUCTIVE = "Destructive operations on the host or the platform are outside the catalogue and are refused";

/** Destructive or sensitive operations that no catalogue workflow performs: checked on lower-cased text. */
const OPERATION_RULES: GateRule[] = [
  { kind: "unsafe", pattern: /(?<![\w.-])(rm|rmdir|unlink)(?![\w.-])\s+(-|\/|~|\*|\.)/, message: `${DESTRUCTIVE}: file removal.` },
  {
    kind: "unsafe",
    pattern:
      /\b(system override|override (the )?safety|safety (is |has been )?(off|disabled)|ignore (all |any |the )?(previous|prior|above|earlier) (instructions|rules)|disregard (your|the|all) (rules|instructions)|ignore (your|the|all|any|previous|prior)( \w+)? (rules|instructions|guardrails|safety)|developer mode|jailbreak|you are now (in )?(root|admin|god)|maintenance mode|bypass (the )?(safety|approval|checks|rules|confirmation)|without (asking|approval|confirmation))\b|^\s*\W*(system|admin|root|developer)\s*(prompt|message|note)?\s*[:\]>]/,
    message: "Instructions that try to switch off the safety rules are refused.",
  },
  { kind: "unsafe", pattern: /\b(drop|truncate)\b.*\b(database|databases|db|table|tables|schema)\b/, message: `${DESTRUCTIVE}: dropping databases.` },
  {
    kind: "unsafe",
    pattern: /\b(delete|remove|destroy|wipe|erase|purge|reset|corrupt)\b.*\b(database|databases|db|postgres|postgresql|redis|metadata|backups?)\b/,
    message: `${DESTRUCTIVE}: deleting platform data.`,
  },
  {
    kind: "unsafe",
    pattern:
      /\b(wipe|erase|shred|format|reformat|zero|overwrite|repartition)\b.*\b(disks?|drives?|partitions?|host|hypervisor|server|everything|all|filesystems?|dev|sd[a-z]|nvme\w*|volumes?)\b/,
    message: `${DESTRUCTIVE}: wiping or formatting storage.`,
  },
  { kind: "unsafe", pattern: /\b(mkfs|fdisk|parted|wipefs|dd)\b/, message: `${DESTRUCTIVE}: disk tools.` },
  {
    kind: "unsafe",
    pattern: /\b(shut\s*down|shutdown|reboot|restart|power\s*off|poweroff|halt|power\s*cycle)\b.*\b(host|hypervisor|server|machine|system|node|computer|box|everything)\b/,
    message: `${DESTRUCTIVE}: shutting down or rebooting the host.`,
  },
  { kind: "unsafe", pattern: /\b(shut\s*down|shutdown|reboot|poweroff|halt)\b\s*(-|$|now\b)/, message: `${DESTRUCTIVE}: shutting down or rebooting the host.` },
  {
    kind: "unsafe",
    pattern: /\b(delete|remove|destroy|wipe|erase|kill|terminate|tear\s+down|nuke|purge|stop)\s+(all|every|each|everything|any)\b/,
    message: `${DESTRUCTIVE}: bulk deletion. Name one VM or one deployment instead.`,
  },
  {
    kind: "unsafe",
    pattern: /\b(pkill|killall)\b|\bkill\s+(-\w+|\d+|all|every|process\w*|pids?)\b|\b(kill|terminate)\b.*\bprocess/,
    message: `${DESTRUCTIVE}: killing processes.`,
  },
  { kind: "unsafe", pattern: /\b(disable|turn\s+off|stop)\b.*\b(selinux|firewalld?|auditd?|sshd|libvirtd)\b/, message: `${DESTRUCTIVE}: disabling host services.` },
  {
    kind: "unsafe",
    pattern:
      /\b(give|show|print|dump|reveal|tell|read|send|leak|exfiltrate|what\s+is|what's)\b.*\b(passwords?|passwd|credentials?|secrets?|private\s+keys?|api\s+keys?|tokens?|shadow)\b/,
    message: "Secrets and credentials are never disclosed through the assistant.",
  },
];

const SCOPE = "That is outside what this platform does";

/** Requests that mention nothing the platform does (or ask for prose); checked on lower-cased text. */
const SCOPE_RULES: GateRule[] = [
  { kind: "out_of_scope", pattern: /\b(weather|forecast|rain|sunny|temperature outside)\b/, message: `${SCOPE} (weather).` },
  { kind: "out_of_scope", pattern: /\b(pizza|burger|sushi|food|restaurants?|recipes?|dinner|lunch|breakfast|coffee|groceries|takeaway)\b/, message: `${SCOPE} (food).` },
  { kind: "out_of_scope", pattern: /\b(poems?|poetry|haiku|limerick|sonnet|song|lyrics|story|stories|essay)\b/, message: `${SCOPE} (creative writing).` },
  { kind: "out_of_scope", pattern: /\b(jokes?|funny|riddle)\b/, message: `${SCOPE} (jokes).` },
  { kind: "out_of_scope", pattern: /\b(flights?|hotels?|vacation|holiday|taxi|uber|train tickets?)\b/, message: `${SCOPE} (travel).` },
  { kind: "out_of_scope", pattern: /\b(translate|translation)\b/, message: `${SCOPE} (translation).` },
  { kind: "out_of_scope", pattern: /\b(music|movies?|films?|tv show|netflix|spotify|podcast)\b/, message: `${SCOPE} (entertainment).` },
  { kind: "out_of_scope", pattern: /\b(football|soccer|basketball|baseball|tennis|who won|match score)\b/, message: `${SCOPE} (sports).` },
  { kind: "out_of_scope", pattern: /\b(meaning of life|capital of|stock price|bitcoin|horoscope)\b/, message: `${SCOPE} (general questions).` },
];

/** A user-given name is judged by the value rules, not by the trigger words it may contain ("vm called drop-test"). */
function maskGivenName(typed: string): string {
  const given = findGivenName(typed) ?? findSuspectAfterNoun(typed);
  if (!given || given.shell || given.raw.length < 2) return typed;
  return typed.split(given.raw).join(" NAME ");
}

/** Multi-line input: every line after the first is read on its own (text after a newline is still the request). */
function linesAfterFirst(typed: string): string[] {
  return typed
    .split(/\r\n|[\n\r\u2028\u2029\u0085]/)
    .slice(1)
    .map((l) => l.trim())
    .filter(Boolean);
}

/** A refusal from the safety gate, or null when the request may be routed. */
export function checkSafety(raw: string): RouteRefusal | null {
  const typed = raw.normalize("NFKC");
  for (const line of linesAfterFirst(typed)) {
    if (COMMAND_AT.test(line)) return { kind: "unsafe", message: `${SHELL}: a line of the request is a shell command.` };
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(typed)) return { kind: "unsafe", message: "The request contains control characters." };
  const masked = maskGivenName(typed);
  const lower = masked.toLowerCase().replace(/\s+/g, " ");
  for (const r of SYNTAX_RULES) if (r.pattern.test(typed)) return { kind: r.kind, message: r.message };
  for (const r of SHELL_RULES.slice(SYNTAX_RULES.length)) if (r.pattern.test(masked)) return { kind: r.kind, message: r.message };
  for (const r of OPERATION_RULES) if (r.pattern.test(lower)) return { kind: r.kind, message: r.message };
  for (const r of SCOPE_RULES) if (r.pattern.test(lower)) return { kind: r.kind, message: r.message };
  return null;
}

/** True when a model- or user-supplied value carries shell syntax (defence in depth for params). */
export function hasShellSyntax(value: string): boolean {
  return SYNTAX_RULES.some((r) => r.pattern.test(value)) || /[;`|&<>]|\$\(|\$\{/.test(value);
}
