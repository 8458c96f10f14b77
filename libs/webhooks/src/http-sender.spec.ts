import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConnectionPools, sendWebhook } from './http-sender';

/** The connections kept alive between attempts: reused only towards the address checked for the attempt. */
describe('webhook connections', () => {
  let server: Server;
  let port: number;
  let connections: number;
  let answer = 'ok';

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200).end(answer));
    });
    server.on('connection', () => (connections += 1));
    // Every loopback address (127.0.0.1, 127.0.0.2) reaches it: two checked addresses, one receiver.
    await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    connections = 0;
    answer = 'ok';
  });

  const url = () => new URL(`http://hooks.test:${port}/in`);
  const post = (pools: ConnectionPools | undefined, address = '127.0.0.1') => sendWebhook(url(), { address, family: 4 }, { 'content-type': 'application/json' }, '{}', 5_000, pools);

  it('sends attempts to the same checked address over one kept-alive connection', async () => {
    const pools = new ConnectionPools(4);
    for (let i = 0; i < 5; i += 1) expect(await post(pools)).toMatchObject({ statusCode: 200, body: 'ok' });
    expect(connections).toBe(1);
    pools.close();
  });

  it('opens another connection when the name was checked to another address, never reusing the first', async () => {
    const pools = new ConnectionPools(4);
    await post(pools, '127.0.0.1');
    await post(pools, '127.0.0.2');
    await post(pools, '127.0.0.2');
    expect(connections).toBe(2);
    pools.close();
  });

  it('closes a connection whose answer is longer than the KiB kept, and one per attempt without pools', async () => {
    const pools = new ConnectionPools(4);
    answer = 'x'.repeat(64 * 1024);
    expect((await post(pools)).body).toHaveLength(1024);
    answer = 'ok';
    await post(pools);
    expect(connections).toBe(2);
    pools.close();

    connections = 0;
    await post(undefined);
    await post(undefined);
    expect(connections).toBe(2);
  });
});
