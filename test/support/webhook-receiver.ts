import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
}

/** What the receiver answers to one request; `hold`: never answers (a timeout, or a worker killed mid-delivery). */
export type Answer = { status: number; headers?: Record<string, string>; body?: string } | 'hold';

/**
 * A real HTTP receiver on 127.0.0.1 for webhook tests: records every request, and answers each with the next of
 * `answers` queued, or with `fallback` once none is left.
 */
export async function startReceiver(fallback: Answer = { status: 200, body: 'ok' }) {
  const received: ReceivedWebhook[] = [];
  const queued: Answer[] = [];
  const held: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const answer = queued.shift() ?? receiver.fallback;
      if (answer === 'hold') {
        held.push(res);
        return;
      }
      res.writeHead(answer.status, answer.headers).end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const receiver = {
    url: `http://127.0.0.1:${port}`,
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
