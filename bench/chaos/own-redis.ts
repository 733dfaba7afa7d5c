import { startRedisServer, type OwnRedis } from "@svc/testing";

/** A private redis-server without persistence: a restart comes back empty. */
export interface OwnRedisServer {
  url: string;
  port: number;
  /** kill -9 and start again on the same port: every key is gone. */
  restartWiped(): Promise<void>;
  stop(): Promise<void>;
}

export async function startOwnRedis(): Promise<OwnRedisServer> {
  let server: OwnRedis = await startRedisServer();
  const { url, port } = server;
  return {
    url,
    port,
    async restartWiped() {
      await server.stop();
      server = await startRedisServer({ port });
    },
    stop: () => server.stop(),
  };
}
