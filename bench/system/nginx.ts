import { spawn, type ChildProcess } from "node:child_process";
import { accessSync, chmodSync, constants, mkdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { freePort, waitFor } from "@svc/testing";

/** A missing prerequisite of a benchmark: its message says how to install it; no stack trace is needed. */
export class MissingTool extends Error {
  override name = "MissingTool";
}

/** Where nginx is: PATH first, then the sbin directories a non-root PATH often lacks (Debian installs /usr/sbin/nginx). */
export function findNginx(pathVar = process.env.PATH ?? "", sbinDirs = ["/usr/local/sbin", "/usr/sbin", "/sbin"]): string {
  const dirs = [...pathVar.split(path.delimiter).filter(Boolean), ...sbinDirs];
  for (const dir of dirs) {
    const file = path.join(dir, "nginx");
    try {
      accessSync(file, constants.X_OK);
      if (statSync(file).isFile()) return file;
    } catch {
      // not in this directory: try the next one
    }
  }
  throw new MissingTool(
    "nginx is not installed: bench:system and http-ceiling put nginx in front of the services as a deployment does.\n" +
      "  Install it: sudo apt-get install -y nginx   (RHEL: sudo dnf install -y nginx)\n" +
      "  It only has to be installed: the benchmark starts its own nginx on a spare loopback port.",
  );
}

/** nginx in front of the assistant API (/orchestrator/…) and the web UI (everything else), on a spare loopback port. */
export async function startNginx(dir: string, assistantPort: number, webUiPort: number): Promise<{ port: number; stop(): Promise<void> }> {
  const nginx = findNginx();
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
  const child: ChildProcess = spawn(nginx, ["-p", dir, "-c", conf], { stdio: "ignore" });
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
