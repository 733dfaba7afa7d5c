import { GetConsoleOutputCommand, type EC2Client } from "@aws-sdk/client-ec2";
import { parseConsoleHostKeys } from "../cloud/console-host-keys";
import type { ConsoleHostKeys } from "../types";

/**
 * The host keys cloud-init printed to an instance's console (GetConsoleOutput, base64), polled
 * until its blocks show or `waitMs` passes. EC2 keeps the console of a boot a little after it is
 * printed, so a first read often has none; `call` wraps each request with the driver's errors.
 */
export async function awsConsoleHostKeys(
  ec2: EC2Client,
  instanceId: string,
  call: <T>(what: string, p: Promise<T>) => Promise<T>,
  o: { waitMs: number; pollMs?: number; signal?: AbortSignal },
): Promise<ConsoleHostKeys> {
  const deadline = Date.now() + o.waitMs;
  let lines = 0;
  for (;;) {
    const r = await call("GetConsoleOutput", ec2.send(new GetConsoleOutputCommand({ InstanceId: instanceId })));
    const text = r.Output ? Buffer.from(r.Output, "base64").toString("utf8") : "";
    lines = text ? text.split("\n").filter((l) => l.trim()).length : 0;
    const found = parseConsoleHostKeys(text);
    const source = `the EC2 console output of ${instanceId} (${lines} lines)`;
    if (found.keys.length || found.fingerprints.length) return { ...found, source };
    const pause = Math.min(o.pollMs ?? 5000, deadline - Date.now());
    if (pause <= 0 || o.signal?.aborted) return { keys: [], fingerprints: [], source };
    await new Promise((res) => setTimeout(res, pause));
  }
}
