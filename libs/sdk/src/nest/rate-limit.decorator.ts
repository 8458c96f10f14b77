import { SetMetadata } from '@nestjs/common';
import type { RouteLimit } from '../http/enforce';

export const RATE_LIMIT_METADATA = 'tollgate:rate-limit';

/**
 * Checks this route (or every route of this controller) with Tollgate before the handler runs:
 * `@RateLimit({ cost: 3 })`; the endpoint defaults to `METHOD routePattern` (`POST /v1/messages`).
 */
export const RateLimit = (limit: RouteLimit = {}) => SetMetadata(RATE_LIMIT_METADATA, limit);
