import type { Server } from "node:http";

/**
 * Stop an HTTP server within `graceMs`: no new connections, idle keep-alive ones closed now, and
 * whatever is still open after the grace (SSE streams, slow clients) closed too, so a service
 * never waits on a client to exit.
 */
export async function closeHttpServer(server: Server, graceMs = 5000): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const force = setTimeout(() => server.closeAllConnections(), graceMs);
  force.unref();
  try {
    await closed;
  } finally {
    clearTimeout(force);
  }
}
