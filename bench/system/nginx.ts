import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { freePort, waitFor } from "@svc/testing";

/** nginx in front of the assistant API (/orchestrator/…) and the web UI (everything else), on a spare loopback port. */
export async function startNginx(dir: string, assistantPort: number, webUiPort: number): Promise<{ port: number; stop(): Promise<void> }> {
  const port = await freePort();
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o755);
  const conf = path.join(dir, "nginx.conf");
  writeFileSync(
    conf,
    `worker_processes 2;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream assistant { server 127.0.0.1:${assistantPort}; keepalive 64; }
  upstream webui { server 127.0.0.1:${webUiPort}; keepalive 64; }
  proxy_http_version 1.1;
  proxy_set_header Connection "";
  proxy_set_header Host $http_host;
  proxy_read_timeout 60s;
  server {
    listen 127.0.0.1:${port};
    location /orchestrator/ { proxy_pass http://assistant; }
    location / { proxy_pass http://webui; }
  }
}
`,
  );
  const child: ChildProcess = spawn("nginx", ["-p", dir, "-c", conf], { stdio: "ignore" });
  await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/orchestrator/flows/none`, { signal: AbortSignal.timeout(2000) })).status > 0, {
    timeoutMs: 15000,
    what: "nginx",
  });
  return {
    port,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const done = new Promise((r) => child.once("exit", r));
        child.kill("SIGQUIT");
        const t = setTimeout(() => child.kill("SIGKILL"), 5000);
        await done;
        clearTimeout(t);
      }
    },
  };
}
