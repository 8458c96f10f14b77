// The dashboard's HTTP server (`node apps/dashboard/server.mts`, in place of `next start`): Next's request handler
// behind a Node server that knows the browser's address. `next start` cannot tell it: it sets X-Forwarded-For to the
// TCP peer only when the request has none, so a browser that sends its own X-Forwarded-For replaces its address with
// any it likes, and the peer is lost. Here every POST (a server action, such as signing in) gets the browser's
// address, signed with CLIENT_ADDRESS_SECRET, in x-tollgate-client-address; the API believes nothing else
// (docs/adr/0011-sign-in-throttling.md). A value the browser sent in that header is always dropped.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import next from 'next';
import { clientAddressOf, compileTrust } from './lib/client-address.mts';
import { serverEnvSchema } from './lib/server-config.mts';

// The workspace libraries are CommonJS builds (docs/adr/0001-monorepo-layout.md); Node's ESM loader cannot see their named exports.
const domain = createRequire(import.meta.url)('@tollgate/domain') as typeof import('@tollgate/domain');
const { CLIENT_ADDRESS_HEADER } = domain;

const envSchema = serverEnvSchema(domain);

let settings;
try {
  settings = domain.loadConfig(envSchema, process.env, (e) => ({
    port: e.DASHBOARD_PORT,
    trust: compileTrust(domain.parseTrustProxy(e.DASHBOARD_TRUST_PROXY)),
    secret: e.CLIENT_ADDRESS_SECRET || null,
  }));
} catch (error) {
  console.error(`tollgate dashboard: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
const { port, trust, secret } = settings;
if (!secret) {
  console.warn('tollgate dashboard: CLIENT_ADDRESS_SECRET is not set: the API counts every sign-in as coming from the dashboard itself (one budget for all browsers)');
}

/** Drops any x-tollgate-client-address the browser sent; on a POST, sets the signed one. */
async function stampClientAddress(request: IncomingMessage): Promise<void> {
  delete request.headers[CLIENT_ADDRESS_HEADER];
  if (!secret || request.method !== 'POST') return;
  const address = clientAddressOf(request, trust);
  // A trusted proxy may name something that is not an address: then the API sees the dashboard's own.
  if (domain.ipSubject(address) === null) return;
  request.headers[CLIENT_ADDRESS_HEADER] = await domain.signClientAddress(secret, address);
}

const app = next({ dev: false, dir: import.meta.dirname, hostname: 'localhost', port });
const handle = app.getRequestHandler();
await app.prepare();

const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
  try {
    await stampClientAddress(request);
    await handle(request, response);
  } catch (error) {
    console.error(`tollgate dashboard: ${request.method} ${request.url} failed`, error);
    if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
    response.end('Internal Server Error');
  }
});

server.listen(port, () => console.log(`tollgate dashboard: listening on http://localhost:${port}`));

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.close();
    server.closeAllConnections();
    void app.close().finally(() => process.exit(0));
  });
}
