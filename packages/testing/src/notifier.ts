/**
 * A notifier (the engine's `Notifier`) that records what it was told: `run:<dag>:<run>:<version>`,
 * `dag:<dag>`, `dag:<dag>:schedule`. For tests of what engine writes signal.
 */
export interface RecordingNotifier {
  calls: string[];
  clear(): void;
  runChanged(dagId: string, runId: string, version: number): Promise<void>;
  dagChanged(dagId: string, opts?: { schedule?: boolean }): Promise<void>;
}

export function recordingNotifier(): RecordingNotifier {
  const calls: string[] = [];
  return {
    calls,
    clear: () => void calls.splice(0),
    runChanged: async (dagId, runId, version) => void calls.push(`run:${dagId}:${runId}:${version}`),
    dagChanged: async (dagId, opts) => void calls.push(`dag:${dagId}${opts?.schedule ? ":schedule" : ""}`),
  };
}
