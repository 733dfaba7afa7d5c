import { watch, type FSWatcher } from "node:fs";
import path from "node:path";
import type { Logger } from "@svc/logger";

/** Options for watchDagFolder. */
export interface WatchDagFolderOptions {
  /** Quiet time after the last file event before onChange runs. Default 200 ms. */
  debounceMs?: number;
  /** Full rescan period, a fallback for events the OS drops (network mounts, some editors). Default 30 s. */
  rescanIntervalMs?: number;
  logger?: Logger;
}

const IGNORED = /(^\.|~$|\.swp$|\.swx$|\.tmp$)/;

/**
 * Call `onChange` after files under `dir` change (debounced) and on a periodic full rescan. Runs of
 * onChange never overlap: changes seen during a run cause one more run afterwards. The caller does
 * the initial sync. Returns a function that stops watching.
 */
export function watchDagFolder(dir: string, onChange: () => void | Promise<void>, opts: WatchDagFolderOptions = {}): () => void {
  const debounceMs = opts.debounceMs ?? 200;
  const log = opts.logger;
  let stopped = false;
  let watcher: FSWatcher | undefined;
  let debounce: NodeJS.Timeout | undefined;
  let running = false;
  let again = false;

  const run = async (): Promise<void> => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        await onChange();
      } while (again && !stopped);
    } catch (e) {
      log?.error({ dir, err: String(e) }, "dag folder change handler failed");
    } finally {
      running = false;
    }
  };

  const schedule = () => {
    if (stopped) return;
    if (debounce) clearTimeout(debounce);
    debounce = setTimeout(() => {
      debounce = undefined;
      void run();
    }, debounceMs);
  };

  const startWatcher = () => {
    if (stopped || watcher) return;
    try {
      watcher = openWatcher(dir, (file) => {
        if (file && IGNORED.test(path.basename(file))) return;
        schedule();
      });
      watcher.on("error", (e) => {
        log?.warn({ dir, err: String(e) }, "dag folder watcher failed; relying on periodic rescans");
        watcher?.close();
        watcher = undefined;
      });
    } catch (e) {
      log?.warn({ dir, err: String(e) }, "cannot watch dag folder; relying on periodic rescans");
    }
  };

  startWatcher();
  const rescan = setInterval(() => {
    startWatcher(); // re-arm a watcher that failed, e.g. when the folder appeared after start-up
    void run();
  }, opts.rescanIntervalMs ?? 30_000);

  return () => {
    stopped = true;
    clearInterval(rescan);
    if (debounce) clearTimeout(debounce);
    watcher?.close();
    watcher = undefined;
  };
}

/** fs.watch, recursive where the platform supports it (Linux since Node 20, macOS, Windows). */
function openWatcher(dir: string, onEvent: (file: string | null) => void): FSWatcher {
  try {
    return watch(dir, { recursive: true }, (_event, file) => onEvent(file));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ERR_FEATURE_UNAVAILABLE_ON_PLATFORM") throw e;
    return watch(dir, (_event, file) => onEvent(file));
  }
}
