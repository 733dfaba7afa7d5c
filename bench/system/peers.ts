import type { Db } from "@svc/db";
import type { EngineApi } from "@svc/engine";
import { percentile } from "../stats";
import { bullmqPeer, graphilePeer, pgBossPeer, type Peer } from "./peer-queues";
import { timeRuns } from "./engine-phases";

/**
 * The two workloads as DAGs: `seq` tasks in a chain, and start → `fan` tasks → end; each twice.
 * `peer_seq`/`peer_fan` are no-ops (instant: a worker runs a downstream no-op itself, with no job);
 * `peer_seq_claimed`/`peer_fan_claimed` are `sleep 0`, which does nothing either but is claimed
 * and goes through the queue like any operator that runs, as every peer's empty handler does.
 */
export function PEER_DAGS(seq: number, fan: number): Record<string, string> {
  const dags = (suffix: string, op: string) => {
    const chain = Array.from({ length: seq }, (_, i) => `  - {task_id: t${i}, ${op}${i ? `, depends_on: [t${i - 1}]` : ""}}`);
    const mids = Array.from({ length: fan }, (_, i) => `  - {task_id: m${i}, ${op}, depends_on: [start]}`);
    const ends = Array.from({ length: fan }, (_, i) => `m${i}`).join(", ");
    return {
      [`peer_seq${suffix}`]: `dag_id: peer_seq${suffix}\nmax_active_runs: 1\ntasks:\n${chain.join("\n")}\n`,
      [`peer_fan${suffix}`]: `dag_id: peer_fan${suffix}\nmax_active_runs: 1\ntasks:\n  - {task_id: start, ${op}}\n${mids.join("\n")}\n  - {task_id: end, ${op}, depends_on: [${ends}]}\n`,
    };
  };
  return { ...dags("", "operator: noop"), ...dags("_claimed", "operator: sleep, args: {seconds: 0}") };
}

type Times = { seq_s: number; fan_s: number; ratio_seq: number; ratio_fan: number };
type ClaimedTimes = { seq_claimed_s: number; fan_claimed_s: number; ratio_seq_claimed: number; ratio_fan_claimed: number };

export interface PeerTimes {
  rows: [string, string][];
  json: Record<string, Times & Partial<ClaimedTimes>>;
}

/**
 * Each system runs each workload `rounds` times after one warm-up (median reported); the engine
 * runs in the stack's workers, the peers in this process with the same number of slots.
 */
export async function runPeers(o: {
  db: Db;
  api: EngineApi;
  databaseUrl: string;
  redisUrl: string;
  prefix: string;
  seq: number;
  fan: number;
  concurrency: number;
  rounds?: number;
  say: (s: string) => void;
}): Promise<PeerTimes> {
  const rounds = o.rounds ?? 3;
  const med = async (f: (label: string) => Promise<number>, tag: string) => {
    await f(`${tag}-warm`);
    const xs: number[] = [];
    for (let i = 0; i < rounds; i++) xs.push(await f(`${tag}-${i}`));
    return percentile(xs, 50);
  };
  const engine = {
    seq: await med((l) => timeRuns(o.db, o.api, "peer_seq", 1, l, 120000), "seq"),
    fan: await med((l) => timeRuns(o.db, o.api, "peer_fan", 1, l, 120000), "fan"),
    seqClaimed: await med((l) => timeRuns(o.db, o.api, "peer_seq_claimed", 1, l, 120000), "seqc"),
    fanClaimed: await med((l) => timeRuns(o.db, o.api, "peer_fan_claimed", 1, l, 120000), "fanc"),
  };
  o.say(`engine: ${o.seq}-task sequence ${engine.seq.toFixed(3)} s, ${o.fan + 2}-task fan-out/fan-in ${engine.fan.toFixed(3)} s (no-op)`);
  o.say(`engine: the same with claimed tasks (sleep 0): ${engine.seqClaimed.toFixed(3)} s, ${engine.fanClaimed.toFixed(3)} s`);
  const makers: [string, () => Promise<Peer>][] = [
    ["bullmq", () => bullmqPeer(o.redisUrl, `${o.prefix}-peer`, o.concurrency)],
    ["graphile-worker", () => graphilePeer(o.databaseUrl, o.concurrency)],
    ["pg-boss", () => pgBossPeer(o.databaseUrl, o.concurrency)],
  ];
  const json: PeerTimes["json"] = {};
  const rows: [string, string][] = [
    [`peers (${o.seq}-task sequence / ${o.fan + 2}-task fan-out/fan-in, median of ${rounds})`, `engine ${engine.seq.toFixed(3)} s / ${engine.fan.toFixed(3)} s`],
    [`  engine, claimed tasks (sleep 0)`, `${engine.seqClaimed.toFixed(3)} s / ${engine.fanClaimed.toFixed(3)} s`],
  ];
  for (const [name, make] of makers) {
    const peer = await make();
    try {
      const seq = await med(() => peer.sequence(o.seq), "seq");
      const fan = await med(() => peer.fanOutIn(o.fan), "fan");
      json[name] = {
        seq_s: seq,
        fan_s: fan,
        ratio_seq: engine.seq / seq,
        ratio_fan: engine.fan / fan,
        ratio_seq_claimed: engine.seqClaimed / seq,
        ratio_fan_claimed: engine.fanClaimed / fan,
      };
      const r = (a: number, b: number) => `${(a / seq).toFixed(2)} / ${(b / fan).toFixed(2)}`;
      rows.push([
        `  ${name}`,
        `${seq.toFixed(3)} s / ${fan.toFixed(3)} s; engine time ÷ ${name} time: ${r(engine.seq, engine.fan)}, claimed ${r(engine.seqClaimed, engine.fanClaimed)}`,
      ]);
      o.say(`${name}: sequence ${seq.toFixed(3)} s, fan-out/fan-in ${fan.toFixed(3)} s`);
    } finally {
      await peer.close();
    }
  }
  const claimed = { seq_claimed_s: engine.seqClaimed, fan_claimed_s: engine.fanClaimed, ratio_seq_claimed: 1, ratio_fan_claimed: 1 };
  return { rows, json: { engine: { seq_s: engine.seq, fan_s: engine.fan, ratio_seq: 1, ratio_fan: 1, ...claimed }, ...json } };
}
