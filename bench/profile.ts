import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";

/** Record a V8 CPU profile of this process around `fn` into `file` (open it in Chrome DevTools). */
export async function profiled<T>(file: string | undefined, fn: () => Promise<T>): Promise<T> {
  if (!file) return fn();
  const s = new Session();
  s.connect();
  const post = (method: string, params?: object) => new Promise<unknown>((res, rej) => s.post(method, params ?? {}, (e, r) => (e ? rej(e) : res(r))));
  await post("Profiler.enable");
  await post("Profiler.start");
  try {
    return await fn();
  } finally {
    const { profile } = (await post("Profiler.stop")) as { profile: unknown };
    writeFileSync(file, JSON.stringify(profile));
    s.disconnect();
  }
}
