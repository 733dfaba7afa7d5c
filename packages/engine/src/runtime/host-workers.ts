import { Worker, type WorkerOptions } from "bullmq";
import { hostQueueName } from "@svc/queue";
import type { HostRouting } from "../ports";
import type { RuntimeDeps } from "./deps";

type Processor = (job: { data: unknown }) => Promise<void>;

export interface HostWorkers {
  close(): Promise<void>;
}

/**
 * One BullMQ worker per served host's queue (`tasks@<host>`), with the worker's processor: made
 * for each host the router serves, paused while the host's probe finds it down (its tries wait
 * in its queue, none fails) and resumed when it is back. Re-synced whenever the router reports a
 * change (a host added to the inventory, a host going down or up).
 */
export function startHostWorkers(deps: RuntimeDeps, hosts: HostRouting, processor: Processor, opts: WorkerOptions): HostWorkers {
  const workers = new Map<string, { worker: Worker; started: boolean; paused: boolean }>();
  let closed = false;
  const sync = () => {
    if (closed) return;
    for (const host of hosts.served()) {
      let w = workers.get(host);
      if (!w) {
        const worker = new Worker(hostQueueName(host), processor, { ...opts, autorun: false });
        worker.on("error", (e) => deps.logger.warn({ host, err: String(e) }, "host queue error"));
        w = { worker, started: false, paused: true };
        workers.set(host, w);
      }
      const up = hosts.serves(host);
      if (up && !w.started) {
        w.started = true;
        void w.worker.run().catch((e) => deps.logger.error({ host, err: String(e) }, "host queue worker stopped"));
        deps.logger.info({ host }, "serving host: taking its tries");
      } else if (up && w.paused) {
        void w.worker.resume();
        deps.logger.info({ host }, "host is up again: taking its tries");
      } else if (!up && w.started && !w.paused) {
        void w.worker.pause(true);
        deps.logger.warn({ host, reason: hosts.status()[host]?.reason }, "host is down: its tries wait in its queue");
      }
      w.paused = !up;
    }
    for (const [host, w] of workers) {
      if (hosts.served().includes(host)) continue;
      workers.delete(host);
      void w.worker.close();
    }
  };
  hosts.onChange(sync);
  sync();
  return {
    async close() {
      closed = true;
      await Promise.all([...workers.values()].map((w) => w.worker.close()));
    },
  };
}
