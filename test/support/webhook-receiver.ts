import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { TLSSocket } from 'node:tls';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  /** Over TLS: the server name the client asked for (SNI); null over plain HTTP. */
  servername: string | null;
}

/** Receives over https with this key and certificate, at `https://<host>:<port>` (`host` must resolve to 127.0.0.1 for the sender). */
export interface ReceiverTls {
  key: string;
  cert: string;
  host: string;
}

/** What the receiver answers to one request; `hold`: never answers (a timeout, or a worker killed mid-delivery). */
export type Answer = { status: number; headers?: Record<string, string>; body?: string } | 'hold';

/**
 * A real HTTP (or, with `tls`, HTTPS) receiver on 127.0.0.1 for webhook tests: records every request, and answers each
 * with the next of `answers` queued, or with `fallback` once none is left.
 */
export async function startReceiver(fallback: Answer = { status: 200, body: 'ok' }, tls?: ReceiverTls) {
  const received: ReceivedWebhook[] = [];
  const queued: Answer[] = [];
  const held: ServerResponse[] = [];
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const servername = tls ? (req.socket as TLSSocket).servername || null : null;
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), servername });
      const answer = queued.shift() ?? receiver.fallback;
      if (answer === 'hold') {
        held.push(res);
        return;
      }
      res.writeHead(answer.status, answer.headers).end(answer.body ?? '');
    });
  };
  const server = tls ? createHttpsServer({ key: tls.key, cert: tls.cert }, handle) : createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const receiver = {
    url: tls ? `https://${tls.host}:${port}` : `http://127.0.0.1:${port}`,
    received,
    fallback,
    /** Forgets what was received and queued, and answers 200 again. */
    reset: () => {
      received.length = 0;
      queued.length = 0;
      receiver.fallback = fallback;
    },
    /** Answers the next requests with these, in order. */
    answer: (...answers: Answer[]) => queued.push(...answers),
    close: async () => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}

/** A clock that runs with the system's, moved forward by what a test adds (the retry schedule spans days). */
export function testClock() {
  let offsetMs = 0;
  return {
    now: () => new Date(Date.now() + offsetMs),
    advance: (ms: number) => {
      offsetMs += ms;
    },
    /** Moves the clock to `at` (never back). */
    advanceTo: (at: Date) => {
      offsetMs = Math.max(offsetMs, at.getTime() - Date.now());
    },
  };
}
