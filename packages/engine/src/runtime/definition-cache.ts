import type { DagDefinition } from "@svc/dags";
import type { Db } from "@svc/db";
import { countUpstream, evaluateTriggerRule, successWaitsForOthers } from "../core/trigger-rules";

const MAX_ENTRIES = 256;
const cache = new Map<string, DagDefinition>();

/**
 * A run's DAG definition, cached by its hash: the snapshot never changes for a hash, and parsing a
 * large definition on every try and evaluation dominated the hot path.
 */
export async function runDefinition(db: Pick<Db, "selectFrom">, dagId: string, runId: string, dagHash: string): Promise<DagDefinition | undefined> {
  return cached(dagHash, async () => (await db.selectFrom("dag_run").select("definition").where("dag_id", "=", dagId).where("run_id", "=", runId).executeTakeFirst())?.definition);
}

/**
 * A DAG's current definition by its hash, from the same cache (a hash names one definition
 * wherever it is stored); undefined if the DAG no longer has that hash.
 */
export async function dagDefinition(db: Pick<Db, "selectFrom">, dagId: string, dagHash: string): Promise<DagDefinition | undefined> {
  return cached(dagHash, async () => (await db.selectFrom("dag").select("definition").where("dag_id", "=", dagId).where("hash", "=", dagHash).executeTakeFirst())?.definition);
}

/** The cached definition of a hash, if any, without waiting (the hot path of instant tries). */
export function cachedDefinition(dagHash: string): DagDefinition | undefined {
  const hit = cache.get(dagHash);
  if (hit) {
    cache.delete(dagHash);
    cache.set(dagHash, hit); // keep recently used entries last
  }
  return hit;
}

/** Keep `def` as the definition of `dagHash` (read elsewhere); returns the cached one. */
export function rememberDefinition(dagHash: string, def: DagDefinition): DagDefinition {
  const hit = cachedDefinition(dagHash);
  if (hit) return hit;
  cache.set(dagHash, def);
  if (cache.size > MAX_ENTRIES) cache.delete(cache.keys().next().value as string);
  return def;
}

async function cached(dagHash: string, load: () => Promise<unknown>): Promise<DagDefinition | undefined> {
  const hit = cachedDefinition(dagHash);
  if (hit) return hit;
  const def = (await load()) as DagDefinition | undefined;
  return def ? rememberDefinition(dagHash, def) : undefined;
}

/** Whether any template among these strings reads upstream outputs (`ti.<task>.output`). */
export function readsOutputs(values: unknown): boolean {
  return /\bti\s*\./.test(JSON.stringify(values ?? null));
}

/** What a worker needs to know of one task of a definition, computed once per definition. */
export interface TaskFacts {
  task: DagDefinition["tasks"][number];
  /** Some task depends on it: its outcome can change a scheduling decision. */
  hasDownstream: boolean;
  /**
   * Its downstream tasks that are plain hops: this task is their only upstream, their trigger rule
   * waits for it and runs on its success, and they have no condition. The round that lands this
   * task's success queues them (svc_try_ops, migration 015).
   */
  hops?: string[];
  /**
   * Set when its success decides nothing but its hops: each other downstream task (a join) waits
   * for another upstream whatever this one's success (see successWaitsForOthers); per join, the
   * set of its upstream tasks. Undefined when it has no downstream task or some downstream task
   * could be decided by its success alone: then the run is evaluated after it.
   */
  joins?: ReadonlySet<string>[];
  /** Its args read upstream outputs. */
  readsOutputs: boolean;
  /** Its args read the run's note (one extra read, only for such tasks). */
  readsNote: boolean;
  /** Its args hold templates at all (most do not: no context to build for them). */
  templated: boolean;
  /** Untemplated args as validated by an instant operator, kept after the first try. */
  instantArgs?: { success: boolean; data?: unknown };
}

const facts = new WeakMap<DagDefinition, Map<string, TaskFacts>>();

/** The facts of a task by id, indexed once per cached definition (wide DAGs made this quadratic). */
export function taskFacts(dag: DagDefinition, taskId: string): TaskFacts | undefined {
  let index = facts.get(dag);
  if (!index) {
    const downstream = new Set(dag.tasks.flatMap((t) => t.depends_on));
    const down = downstreamOf(dag);
    index = new Map(
      dag.tasks.map((t) => [
        t.task_id,
        {
          task: t,
          hasDownstream: downstream.has(t.task_id),
          hops: down.get(t.task_id)?.hops,
          joins: down.get(t.task_id)?.joins,
          readsOutputs: readsOutputs(t.args),
          readsNote: /\brun_note\b/.test(JSON.stringify(t.args ?? null)),
          templated: JSON.stringify(t.args ?? null).includes("{{"),
        },
      ]),
    );
    facts.set(dag, index);
  }
  return index.get(taskId);
}

const ON_SUCCESS = countUpstream(["success"]);
const UNFINISHED = countUpstream([null]);

type Downstream = { hops?: string[]; joins?: ReadonlySet<string>[] };

/** Per upstream task, its hops and joins (see TaskFacts). */
function downstreamOf(dag: DagDefinition): Map<string, Downstream> {
  const out = new Map<string, Downstream>();
  const decidedAlone = new Set<string>();
  const waits = new Map<string, boolean>();
  for (const t of dag.tasks) {
    const rule = t.trigger_rule;
    const waitsForOthers = waits.get(rule) ?? waits.set(rule, successWaitsForOthers(rule)).get(rule)!;
    const plain = t.depends_on.length === 1 && !t.when && evaluateTriggerRule(rule, UNFINISHED) === "wait" && evaluateTriggerRule(rule, ON_SUCCESS) === "run";
    const join = !plain && t.depends_on.length > 1 && waitsForOthers ? new Set(t.depends_on) : undefined;
    for (const up of t.depends_on) {
      const d = out.get(up) ?? out.set(up, {}).get(up)!;
      if (plain) (d.hops ??= []).push(t.task_id);
      else if (join) (d.joins ??= []).push(join);
      else decidedAlone.add(up);
    }
  }
  for (const [up, d] of out) d.joins = decidedAlone.has(up) ? undefined : (d.joins ?? []);
  return out;
}
