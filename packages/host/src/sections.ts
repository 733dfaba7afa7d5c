import { randomBytes } from "node:crypto";
import type { HostExecutor, RunOptions } from "./executor";

/** One probe's answer in a sectioned command: its name, exit code and output (stderr with it). */
export interface Section {
  name: string;
  code: number;
  out: string;
}

/**
 * Defines `section NAME CMD...` for a sectioned script: runs CMD, prints the line
 * "<marker> NAME <exit code>" and then CMD's output (stderr with it), and returns CMD's exit code.
 */
const SECTION_FN = `m=$1; shift
section() { name=$1; shift; out=$("$@" 2>&1); rc=$?; printf '%s %s %s\\n%s\\n' "$m" "$name" "$rc" "$out"; return $rc; }
`;

/**
 * Several probes in one command on the host (each command is an sshd session and a login shell
 * there, 0.6-0.7 s where the shell's start-up is heavy). `script` is fixed text that calls
 * `section NAME CMD...` per probe (NAME: letters, digits, '_'); `args` reach it as $1... (argv
 * words, never script text). Each section follows a line with a random marker, so no probe's
 * output can fake one. Sections come back in the order the script ran them; `code` is the
 * script's own exit code.
 */
export async function runSections(ex: HostExecutor, script: string, args: string[], o: RunOptions = {}): Promise<{ code: number; stderr: string; sections: Section[] }> {
  const marker = `@@svc-probe-${randomBytes(8).toString("hex")}`;
  const r = await ex.run(["sh", "-c", SECTION_FN + script, "sh", marker, ...args], o);
  const sections: Section[] = [];
  let cur: { name: string; code: number; lines: string[] } | null = null;
  const close = () => cur && sections.push({ name: cur.name, code: cur.code, out: cur.lines.join("\n") });
  for (const line of r.stdout.split("\n")) {
    const m = line.startsWith(`${marker} `) ? /^\S+ (\w+) (\d+)$/.exec(line) : null;
    if (!m) {
      cur?.lines.push(line);
      continue;
    }
    close();
    cur = { name: m[1]!, code: Number(m[2]), lines: [] };
  }
  close();
  // printf's own newline after each output.
  for (const s of sections) s.out = s.out.replace(/\n$/, "");
  return { code: r.code, stderr: r.stderr, sections };
}
