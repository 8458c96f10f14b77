import { createServer, type Server } from 'node:http';
import { type ErrorBody, ErrorCode } from '@tollgate/domain';
import type { HealthReport } from './worker-health';

/**
 * The worker's `GET /health` (and `HEAD`), on a port of its own (`WORKER_HEALTH_PORT`): 200 when every job schedule
 * is in Redis, every job completes on time and webhook delivery completes its claim rounds, 503 otherwise, with the same JSON body either way (WorkerHealth's
 * report). Anything else is a 404 `not_found` in the usual error envelope. Serves no tenant data: job names and times.
 */
export class HealthServer {
  private server: Server | null = null;

  constructor(private readonly report: () => HealthReport) {}

  /** Listens on `host:port`; answers the port (0 given: the kernel's pick). Rejects if the port is taken. */
  listen(host: string, port: number): Promise<number> {
    const server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      const answer = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : JSON.stringify(body));
      };
      if (path !== '/health' || (req.method !== 'GET' && req.method !== 'HEAD')) {
        return answer(404, { error: { code: ErrorCode.NOT_FOUND, message: 'the worker answers GET /health only' } } satisfies ErrorBody);
      }
      const report = this.report();
      answer(report.status === 'ok' ? 200 : 503, report);
    });
    // A probe that opens a connection and sends nothing is dropped, not kept.
    server.requestTimeout = 5_000;
    server.headersTimeout = 5_000;
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        const address = server.address();
        resolve(typeof address === 'object' && address ? address.port : port);
      });
    });
  }

  /** Stops listening and drops every connection (a probe's keep-alive does not hold the shutdown). */
  close(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return Promise.resolve();
    return new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
}
