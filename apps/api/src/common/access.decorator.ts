import { SetMetadata } from '@nestjs/common';

/**
 * Who may call a route. Every handler must say it: the global guard denies a route without it.
 * - `public`: anyone (health, metrics, login)
 * - `operator`: an operator's dashboard session or operator key (admin routes)
 * - `tenant`: a tenant's user session or tenant key (its own tenant, read only)
 * - `service`: a service key (enforcement routes)
 * A route may name several kinds (`@Access('operator', 'tenant')`); `public` stands alone.
 */
export type AccessKind = 'public' | 'operator' | 'tenant' | 'service';

export const ACCESS_KEY = 'tollgate:access';
export const Access = (...kinds: [AccessKind, ...AccessKind[]]) => SetMetadata(ACCESS_KEY, kinds);

/**
 * The route reads its caller's credential from the gateway's own header (`FORWARD_AUTH_SERVICE_KEY_HEADER`)
 * instead of `Authorization`, which belongs to the client's request and passes through untouched (forward-auth).
 */
export const GATEWAY_CREDENTIAL_KEY = 'tollgate:gateway-credential';
export const GatewayCredential = () => SetMetadata(GATEWAY_CREDENTIAL_KEY, true);
