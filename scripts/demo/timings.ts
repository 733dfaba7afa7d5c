// `pnpm demo --timings`: where the time between the sentence and the configured VM went, from the
// run's own records (task start and end, the timestamps of each Ansible log line) and the two
// moments only the client sees (the sentence sent, the end seen).

/** What the web UI API says about a run and its task instances (the fields used here). */
export interface RunTimes {
  queued_at?: string | null;
  start_date?: string | null;
  end_date?: string | null;
}
export interface TaskTimes {
  task_id: string;
  operator?: string | null;
  state?: string | null;
  queued_when?: string | null;
  start_date?: string | null;
  end_date?: string | null;
  try_number?: number;
}
export interface TimingsInput {
  /** Client clock: the sentence sent, the intent answered (flow planned, run triggered), the end seen. */
  sentAt: number;
  answeredAt: number;
  seenEndAt: number;
  run: RunTimes;
  tasks: TaskTimes[];
  /** Log lines of the ansible_playbook tasks ("[ISO time] {stream} line"), by task id. */
  ansibleLogs: Record<string, string[]>;
}
export interface Phase {
  phase: string;
  seconds: number;
  /** Nested under the previous top-level phase (the parts of an Ansible task). */
  part?: boolean;
}

const ms = (iso: string | null | undefined): number | undefined => (iso ? Date.parse(iso) : undefined);
const sec = (a: number, b: number): number => Math.max(0, (b - a) / 1000);

/** What each task is, in the words of the demo's phases. */
function labelOf(t: TaskTimes): string {
  if (t.operator === "vm_wait_ssh") return `boot to SSH (${t.task_id})`;
  if (t.operator === "ansible_playbook") return `Ansible (${t.task_id})`;
  return t.task_id;
}

/**
 * An Ansible task's parts from its log's timestamps: start-up (the task's start to the first PLAY
 * line: inventory, host keys, Ansible's own start), each play (fact gathering apart), and the
 * wrap-up after the recap.
 */
export function ansibleParts(lines: string[], start: number, end: number): Phase[] {
  const marks: { at: number; kind: "play" | "task" | "recap"; name: string }[] = [];
  for (const l of lines) {
    const m = /^\[([^\]]+)\] \{\w+\} (PLAY RECAP|PLAY \[(.*)\]|TASK \[(.*)\])/.exec(l);
    if (!m) continue;
    const at = Date.parse(m[1]!);
    if (Number.isNaN(at)) continue;
    if (m[2] === "PLAY RECAP") marks.push({ at, kind: "recap", name: "" });
    else if (m[3] !== undefined) marks.push({ at, kind: "play", name: m[3] });
    else marks.push({ at, kind: "task", name: m[4]! });
  }
  if (marks.length === 0) return [];
  const parts: Phase[] = [{ phase: "start-up (inventory, host keys, ansible-playbook)", seconds: sec(start, marks[0]!.at), part: true }];
  for (let i = 0; i < marks.length; i++) {
    const m = marks[i]!;
    if (m.kind === "recap") break;
    if (m.kind === "play") {
      // The play's time runs to its recap or the next play; its fact gathering is shown apart.
      let j = i + 1;
      while (j < marks.length && marks[j]!.kind === "task") j++;
      const playEnd = marks[j]?.at ?? end;
      const facts = marks.slice(i + 1, j).findIndex((t) => t.name === "Gathering Facts");
      const factSecs = facts < 0 ? 0 : sec(marks[i + 1 + facts]!.at, marks[i + 2 + facts]?.at ?? playEnd);
      parts.push({ phase: `play "${m.name}"`, seconds: sec(m.at, playEnd) - factSecs, part: true });
      if (facts >= 0) parts.push({ phase: "fact gathering", seconds: factSecs, part: true });
    }
  }
  const recap = marks.find((x) => x.kind === "recap");
  if (recap) parts.push({ phase: "recap and clean-up", seconds: sec(recap.at, end), part: true });
  return parts;
}

/** The phases, in order: routing and planning, queueing, each task (Ansible split), the hops between tasks, the report. */
export function computeTimings(i: TimingsInput): Phase[] {
  const ran = i.tasks
    .filter((t) => ms(t.start_date) !== undefined && ms(t.end_date) !== undefined)
    .sort((a, b) => ms(a.start_date)! - ms(b.start_date)! || ms(a.end_date)! - ms(b.end_date)!);
  const phases: Phase[] = [{ phase: "routing and planning (the intent answered: DAG chosen, validated, run triggered)", seconds: sec(i.sentAt, i.answeredAt) }];
  const runStart = ms(i.run.queued_at) ?? ms(i.run.start_date) ?? i.answeredAt;
  if (ran.length > 0) phases.push({ phase: "queueing (run triggered to its first task running)", seconds: sec(runStart, ms(ran[0]!.start_date)!) });
  let hops = 0;
  let lastEnd: number | undefined;
  for (const t of ran) {
    const start = ms(t.start_date)!;
    const end = ms(t.end_date)!;
    // Time between one task's end and the next one's start (the engine's hop), when nothing ran.
    if (lastEnd !== undefined && start > lastEnd) hops += sec(lastEnd, start);
    lastEnd = Math.max(lastEnd ?? end, end);
    phases.push({ phase: labelOf(t), seconds: sec(start, end) });
    if (t.operator === "ansible_playbook") phases.push(...ansibleParts(i.ansibleLogs[t.task_id] ?? [], start, end));
  }
  if (ran.length > 1) phases.push({ phase: "between tasks (the engine's hops, where no task ran)", seconds: hops });
  const runEnd = ms(i.run.end_date) ?? lastEnd;
  if (lastEnd !== undefined) phases.push({ phase: "report (last task done to the end seen here)", seconds: sec(lastEnd, Math.max(i.seenEndAt, runEnd ?? 0)) });
  return phases;
}

/** The table `pnpm demo --timings` prints, with the total the client saw. */
export function formatTimings(phases: Phase[], total: number): string {
  const totalLabel = "total (sentence to the end seen here)";
  const width = Math.max(totalLabel.length, ...phases.map((p) => p.phase.length + (p.part ? 4 : 0)));
  const rows = phases.map((p) => `  ${(p.part ? `    ${p.phase}` : p.phase).padEnd(width)}  ${p.seconds.toFixed(1).padStart(6)} s`);
  return ["where the time went:", ...rows, `  ${totalLabel.padEnd(width)}  ${total.toFixed(1).padStart(6)} s`].join("\n");
}

/** A GET against the web UI's API as JSON (or text when asked). */
type Get = (path: string, text?: boolean) => Promise<unknown>;

/** Reads the run, its task instances and the Ansible tasks' logs, and computes the phases. */
export async function fetchTimings(get: Get, dagId: string, runId: string, client: Pick<TimingsInput, "sentAt" | "answeredAt" | "seenEndAt">): Promise<Phase[]> {
  const base = `/api/v1/dags/${encodeURIComponent(dagId)}/dagRuns/${encodeURIComponent(runId)}`;
  const run = (await get(base)) as RunTimes;
  const tasks = ((await get(`${base}/taskInstances?limit=1000`)) as { task_instances: TaskTimes[] }).task_instances;
  const ansibleLogs: Record<string, string[]> = {};
  for (const t of tasks) {
    if (t.operator !== "ansible_playbook" || !t.start_date) continue;
    const text = (await get(`${base}/taskInstances/${encodeURIComponent(t.task_id)}/logs/${t.try_number ?? 1}?full_content=true`, true)) as string;
    ansibleLogs[t.task_id] = text.split("\n");
  }
  return computeTimings({ ...client, run, tasks, ansibleLogs });
}
