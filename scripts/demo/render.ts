// What the demo shows: the flow's phases, each task's state, a progress bar and the elapsed time.
// On a terminal the block is redrawn in place; otherwise one line is printed per change.

const COLOURS: Record<string, string> = {
  success: "32",
  failed: "31",
  upstream_failed: "33",
  running: "92",
  queued: "90",
  scheduled: "33",
  up_for_retry: "93",
  skipped: "35",
};

export interface DemoState {
  intent: string;
  flowId: string;
  flowStatus: string;
  dagId: string | null;
  runId: string | null;
  phases: string[];
  tasks: Map<string, string>;
  /** Tasks the run has in all (0 until known). */
  totalTasks: number;
  startedAt: number;
}

const DONE = new Set(["success", "failed", "skipped", "upstream_failed", "removed"]);

export function progressOf(s: DemoState): number {
  if (s.totalTasks === 0) return 0;
  const done = [...s.tasks.values()].filter((v) => DONE.has(v)).length;
  return Math.min(100, Math.round((done / s.totalTasks) * 100));
}

export function elapsed(s: DemoState, now = Date.now()): string {
  const t = Math.floor((now - s.startedAt) / 1000);
  return `${String(Math.floor(t / 60)).padStart(2, "0")}:${String(t % 60).padStart(2, "0")}`;
}

function bar(percent: number, width = 30): string {
  const full = Math.round((percent / 100) * width);
  return `[${"#".repeat(full)}${"-".repeat(width - full)}] ${String(percent).padStart(3)}%`;
}

const paint = (colour: boolean, state: string) => (colour && COLOURS[state] ? `\x1b[${COLOURS[state]}m${state}\x1b[0m` : state);

/** The block drawn on a terminal. */
export function block(s: DemoState, colour: boolean): string[] {
  const lines = [
    `"${s.intent}"`,
    `flow ${s.flowId}: ${s.flowStatus}${s.dagId ? `  ->  ${s.dagId}` : ""}${s.runId ? ` run ${s.runId}` : ""}`,
    `phases: ${s.phases.length ? s.phases.join(" > ") : "-"}`,
    `${bar(progressOf(s))}  ${elapsed(s)}`,
  ];
  const width = Math.max(0, ...[...s.tasks.keys()].map((k) => k.length));
  for (const [task, state] of s.tasks) lines.push(`  ${task.padEnd(width)}  ${paint(colour, state)}`);
  return lines;
}

/** Redraws the block in place on a terminal, or prints changes as lines elsewhere. */
export class Screen {
  private drawn = 0;
  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly live = Boolean(out.isTTY),
  ) {}

  show(s: DemoState, change?: string): void {
    if (!this.live) {
      if (change) this.out.write(`[${elapsed(s)}] ${change}${s.totalTasks ? ` (${progressOf(s)}%)` : ""}\n`);
      return;
    }
    const lines = block(s, true);
    if (this.drawn > 0) this.out.write(`\x1b[${this.drawn}A`);
    for (const l of lines) this.out.write(`\x1b[2K${l}\n`);
    this.drawn = lines.length;
  }

  /** Plain text after the live block (the block stays on screen). */
  say(text: string): void {
    this.drawn = 0;
    this.out.write(`${text}\n`);
  }
}
