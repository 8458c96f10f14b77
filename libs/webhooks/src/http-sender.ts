import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';

/** What is kept of an answer's body: its first KiB. */
export const RESPONSE_BODY_BYTES = 1024;

export interface SendResult {
  statusCode: number | null;
  /** Why no status came back (connection refused, timed out, …). */
  error: string | null;
  retryAfter: string | undefined;
  /** The answer's first KiB as text, control characters replaced (it is shown in the API and the dashboard). */
  body: string;
  latencyMs: number;
  /** Set when the answer means the endpoint is gone for good (a 410 Gone, an address refused with a 5xx): why. */
  disableReason?: string;
}

// eslint-disable-next-line no-control-regex -- control characters are replaced before an answer is stored
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

export function sanitizeBody(bytes: Buffer): string {
  return bytes.subarray(0, RESPONSE_BODY_BYTES).toString('utf8').replace(CONTROL, '\ufffd');
}

/** The most receivers' addresses whose connections are kept open; past it, the least recently used idle pool is closed. */
const MAX_POOLS = 256;
/** An idle kept-alive connection is closed after this (under the 5 s most servers keep one). */
const IDLE_MS = 4_000;

/**
 * Kept-alive connections to receivers, one pool per protocol and **checked address** (and host name, for TLS): a
 * connection is reused only towards the address the destination guard let through for this attempt, so a name that
 * resolves elsewhere since is never sent to over an old connection.
 */
export class ConnectionPools {
  private readonly pools = new Map<string, HttpAgent>();

  constructor(private readonly maxSocketsEach: number) {}

  agentFor(url: URL, target: { address: string; family: 4 | 6 }): HttpAgent {
    const key = `${url.protocol}//${url.host}@${target.address}`;
    let agent = this.pools.get(key);
    // Kept in the order of use (a Map iterates in insertion order): the first is the least recently used.
    if (agent) this.pools.delete(key);
    else {
      const options = { keepAlive: true, maxSockets: this.maxSocketsEach, maxFreeSockets: this.maxSocketsEach, timeout: IDLE_MS, scheduling: 'lifo' as const };
      agent = url.protocol === 'https:' ? new HttpsAgent(options) : new HttpAgent(options);
      if (this.pools.size >= MAX_POOLS) this.closeOneIdle();
    }
    this.pools.set(key, agent);
    return agent;
  }

  /** Closes the least recently used pool with no request under way (none: every pool is kept, over the bound). */
  private closeOneIdle(): void {
    for (const [key, pool] of this.pools) {
      if (Object.keys(pool.sockets).length > 0) continue;
      this.pools.delete(key);
      pool.destroy();
      return;
    }
  }

  close(): void {
    for (const agent of this.pools.values()) agent.destroy();
    this.pools.clear();
  }
}

/**
 * POSTs `body` to `url`, connecting to `address` — the one the destination guard checked, never a new DNS answer — with
 * the URL's host name kept for the Host header and TLS (SNI and the certificate's name). Redirects are not followed
 * (a 3xx is a failed attempt), and the whole exchange is cut after `timeoutMs`. With `connections`, a connection to the
 * same checked address is reused (kept alive); without, each attempt opens its own.
 */
export function sendWebhook(
  url: URL,
  target: { address: string; family: 4 | 6 },
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  connections?: ConnectionPools,
): Promise<SendResult> {
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) (callback as (err: null, addresses: { address: string; family: number }[]) => void)(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    let answered: { statusCode: number | null; retryAfter: string | undefined } | null = null;
    const finish = (result: Omit<SendResult, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, latencyMs: elapsed() });
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      url,
      { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, agent: connections?.agentFor(url, target) ?? false, lookup },
      (res) => {
        const header = res.headers['retry-after'];
        answered = { statusCode: res.statusCode ?? null, retryAfter: Array.isArray(header) ? header[0] : header };
        const chunks: Buffer[] = [];
        let kept = 0;
        const done = () => finish({ ...answered!, error: null, body: sanitizeBody(Buffer.concat(chunks)) });
        res.on('data', (chunk: Buffer) => {
          if (kept < RESPONSE_BODY_BYTES) {
            chunks.push(chunk);
            kept += chunk.length;
          }
          // The first KiB is all that is kept: the rest is not waited for (its connection is closed, not reused).
          if (kept >= RESPONSE_BODY_BYTES) {
            done();
            res.destroy();
          }
        });
        // An answer read to its end leaves its connection free for the next attempt to the same address.
        res.on('end', done);
        res.on('error', done);
      },
    );
    const timer = setTimeout(() => {
      // An answer whose body does not end in time still counts by its status (its body is not waited for).
      finish(answered ? { ...answered, error: null, body: '' } : { statusCode: null, error: `timed out after ${timeoutMs} ms`, retryAfter: undefined, body: '' });
      req.destroy();
    }, timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => finish({ statusCode: null, error: describe(err), retryAfter: undefined, body: '' }));
    req.end(body);
  });
}

function describe(err: NodeJS.ErrnoException): string {
  const text = err.code ? `${err.code}: ${err.message}` : err.message;
  return text.replace(CONTROL, '\ufffd').slice(0, 300);
}
