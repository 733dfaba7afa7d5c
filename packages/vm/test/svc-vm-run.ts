import { execFile } from "node:child_process";
import { resolve } from "node:path";

/** What one svc-vm command ended with. */
export interface SvcVmResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The package's own CLI, run from source (bin/svc-vm). */
export const SVC_VM_BIN = resolve(__dirname, "../bin/svc-vm");

/** Run svc-vm with `env`; `code` is its exit status, or 1 when it was killed (its timeout). */
export function runSvcVm(args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<SvcVmResult> {
  return new Promise((done) => {
    execFile(SVC_VM_BIN, args, { env, timeout: timeoutMs }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as NodeJS.ErrnoException).code === "number" ? (err as unknown as { code: number }).code : 1) : 0;
      done({ code, stdout, stderr });
    });
  });
}
