import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy a test can cut and restore, to make a dependency (Postgres, Redis) vanish for the process that
 * connects through it while the real server keeps running for everyone else.
 */
export interface TcpProxy {
  port: number;
  /** Refuses new connections and drops every open one. */
  cut(): Promise<void>;
  /** Listens again on the same port. */
  restore(): Promise<void>;
  /**
   * Holds every chunk this many ms before passing it on (0 = none): a slow network or server. Both ways, or only the
   * target's replies (`replies`): the target has acted on a request whose answer comes late.
   */
  delay(ms: number, only?: 'replies'): void;
  /**
   * `true`: a blackhole. Connections are accepted (new ones too) and stay open, and nothing is passed on either way:
   * a client's commands are never answered and nothing tells it so. `false`: passes data again (on new connections).
   */
  blackhole(on: boolean): void;
  close(): Promise<void>;
}

/**
 * `target.localAddress`: the address the proxy connects to the target from (any of 127.0.0.0/8 on loopback), so the
 * target sees a client of that address: a second browser, from another machine as far as the target can tell.
 */
export async function startTcpProxy(target: { host: string; port: number; localAddress?: string }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  let delayMs = 0;
  let repliesOnly = false;
  let swallowing = false;
  /** Passes `from`'s data to `to`, each chunk after the current delay (in order: chunks wait in one chain). */
  const forward = (from: Socket, to: Socket, replies: boolean) => {
    let chain = Promise.resolve();
    from.on('data', (chunk) => {
      if (swallowing) return;
      const wait = replies || !repliesOnly ? delayMs : 0;
      chain = chain.then(() => (wait > 0 ? new Promise((r) => setTimeout(r, wait)) : undefined)).then(() => {
        if (!to.destroyed) to.write(chunk);
      });
    });
  };
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = createServer((client) => {
        if (swallowing) {
          // Accepted and read, never answered.
          sockets.add(client);
          client.on('error', () => client.destroy()).on('close', () => sockets.delete(client));
          client.resume();
          return;
        }
        const upstream = createConnection(target);
        sockets.add(client).add(upstream);
        const drop = () => {
          client.destroy();
          upstream.destroy();
          sockets.delete(client);
          sockets.delete(upstream);
        };
        client.on('error', drop).on('close', drop);
        upstream.on('error', drop).on('close', drop);
        forward(client, upstream, false);
        forward(upstream, client, true);
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        const address = server?.address();
        port = typeof address === 'object' && address ? address.port : port;
        resolve();
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      sockets.clear();
      if (!server) return resolve();
      server.close(() => resolve());
      server = null;
    });
  await listen();
  return {
    get port() {
      return port;
    },
    cut: stop,
    restore: listen,
    close: stop,
    delay: (ms: number, only?: 'replies') => {
      delayMs = ms;
      repliesOnly = only === 'replies';
    },
    blackhole: (on: boolean) => {
      swallowing = on;
    },
  };
}

/** A proxy in front of the Redis `url` names, and the URL that reaches that Redis through it. */
export async function proxiedRedis(url: string): Promise<{ proxy: TcpProxy; redisUrl: string }> {
  const target = new URL(url);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
  return { proxy, redisUrl: Object.assign(new URL(url), { port: String(proxy.port) }).toString() };
}

/** A proxy in front of the database `url` names, and the URL that reaches that database through it. */
export async function proxiedDatabase(url: string): Promise<{ proxy: TcpProxy; databaseUrl: string }> {
  const target = new URL(url);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  return { proxy, databaseUrl: Object.assign(new URL(url), { port: String(proxy.port) }).toString() };
}
