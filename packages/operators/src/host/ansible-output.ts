/** Follows ansible-playbook's default output: the current task, failures, the recap and the custom stats. */
export class AnsibleOutputWatcher {
  private task = "";
  private inStats = false;
  /**
   * What the play gave with `ansible.builtin.set_stats` (per run, not per host), shown because the
   * operator sets ANSIBLE_SHOW_CUSTOM_STATS: the default callback prints it on one line,
   * `\tRUN: {json}`, under the CUSTOM STATS banner. null: the play set none.
   */
  stats: Record<string, unknown> | null = null;
  readonly failures: { task: string; host: string; detail: string }[] = [];
  readonly recap: Record<string, Record<string, number>> = {};
  readonly tail: string[] = [];

  /** Feed one output line. */
  line(l: string): void {
    this.tail.push(l);
    if (this.tail.length > 50) this.tail.shift();
    const task = /^(?:TASK|RUNNING HANDLER) \[(.*)\]/.exec(l);
    if (task) this.task = task[1]!;
    // "fatal: [h]: FAILED! => {…}", and a loop's "failed: [h] (item=…) => {…}" (the item may hold '=').
    const fail = /^(fatal|failed): \[([^\]]+)\](?:: [A-Z!]+| \(item=.*?\))? => (.*)$/.exec(l);
    if (fail) this.failures.push({ task: this.task, host: fail[2]!, detail: summarize(fail[3]!) });
    const recap = /^(\S+)\s+:\s+((?:\w+=\d+\s*)+)$/.exec(l);
    if (recap) {
      this.recap[recap[1]!] = Object.fromEntries([...recap[2]!.matchAll(/(\w+)=(\d+)/g)].map((m) => [m[1]!, Number(m[2])]));
    }
    if (/^CUSTOM STATS: /.test(l)) this.inStats = true;
    const run = this.inStats ? /^\tRUN: (\{.*\})\s*$/.exec(l) : null;
    if (run) {
      try {
        const v = JSON.parse(run[1]!) as unknown;
        if (v && typeof v === "object" && !Array.isArray(v)) this.stats = v as Record<string, unknown>;
      } catch {
        // Not the callback's JSON: no stats.
      }
    }
  }

  /** Totals over all hosts of the PLAY RECAP. */
  totals(): Record<string, number> {
    const t: Record<string, number> = {};
    for (const host of Object.values(this.recap)) for (const [k, v] of Object.entries(host)) t[k] = (t[k] ?? 0) + v;
    return t;
  }
}

/** The "msg" of a failure's JSON when there is one, else the raw text; one line, bounded. */
function summarize(json: string): string {
  try {
    const o = JSON.parse(json) as { msg?: unknown; stderr?: unknown; stdout?: unknown };
    const msg = typeof o.msg === "string" ? o.msg : typeof o.stderr === "string" ? o.stderr : json;
    // A command's own last words say more than "non-zero return code" (ssh's closing notice left out).
    const said = [o.stderr, o.stdout]
      .flatMap((v) => (typeof v === "string" ? v.split("\n") : []))
      .map((l) => l.trim())
      .filter((l) => l && !/^Shared connection to .* closed\.$/.test(l))
      .pop();
    return (said && typeof o.msg === "string" && !o.msg.includes(said) ? `${msg}: ${said}` : msg).replace(/\s+/g, " ").slice(0, 300);
  } catch {
    return json.replace(/\s+/g, " ").slice(0, 300);
  }
}
