import type * as Domain from '@tollgate/domain';
import { z } from 'zod';

/** What the schema needs of `@tollgate/domain`: server.mts loads it with `require` (a CommonJS build), tests import it. */
export type ServerConfigDomain = Pick<typeof Domain, 'trustProxySchema' | 'CLIENT_ADDRESS_SECRET_MIN_LENGTH'>;

/** Every environment variable the dashboard's own server (server.mts) reads (`.env.example` lists each). */
export function serverEnvSchema(domain: ServerConfigDomain) {
  return z
    .object({
      NODE_ENV: z.enum(['development', 'test', 'production']).default('production'),
      DASHBOARD_PORT: z.coerce.number().int().min(1).max(65_535).default(3001),
      /** Proxies in front of the dashboard whose X-Forwarded-For is believed; read like the API's TRUST_PROXY. */
      DASHBOARD_TRUST_PROXY: domain.trustProxySchema,
      /** Shared with the API (the same value on both): the browser's address is signed with it. */
      CLIENT_ADDRESS_SECRET: z.union([z.literal(''), z.string().min(domain.CLIENT_ADDRESS_SECRET_MIN_LENGTH)]).default(''),
    })
    .refine((e) => e.NODE_ENV !== 'production' || e.CLIENT_ADDRESS_SECRET !== '', {
      path: ['CLIENT_ADDRESS_SECRET'],
      message: 'required in production, the same value as the API’s (e.g. openssl rand -hex 32)',
    });
}
