import { SetMetadata } from '@nestjs/common';

/**
 * Who may call a route. Every handler must say it: the global guard denies a route without it.
 * - `public`: anyone (health, metrics, login)
 * - `operator`: an operator's dashboard session
 * - `service`: a service key (enforcement routes)
 */
export type AccessKind = 'public' | 'operator' | 'service';

export const ACCESS_KEY = 'tollgate:access';
export const Access = (kind: AccessKind) => SetMetadata(ACCESS_KEY, kind);
