import { createHash, timingSafeEqual } from 'node:crypto';
import { AppError, ErrorCode } from '@tollgate/domain';
import { bearerToken, type RequestWithCaller } from '../../common/caller';
import type { ApiConfig } from '../../config/config';

/**
 * Who may read `/metrics` (the tenants' names and traffic): with `METRICS_TOKEN` set, only a scrape that sends it as
 * `Authorization: Bearer …`, compared in constant time; without it, anyone who reaches the metrics listener
 * (`METRICS_PORT`, meant for a private interface). On the API's port `/metrics` needs the token: without one it is not
 * served there at all.
 */
export class MetricsAccess {
  private readonly tokenHash: Buffer | null;

  constructor(private readonly config: ApiConfig['metrics']) {
    this.tokenHash = config.token === null ? null : sha256(config.token);
  }

  /** Throws unless `req` may read the metrics on the API's own port (`onOwnListener` false) or on the metrics listener. */
  authorize(req: Pick<RequestWithCaller, 'headers'>, onOwnListener: boolean): void {
    if (!onOwnListener && this.config.listener !== null) {
      throw new AppError(ErrorCode.NOT_FOUND, 'metrics are served on their own port (METRICS_PORT), not here');
    }
    if (this.tokenHash === null) {
      if (onOwnListener) return;
      throw new AppError(ErrorCode.NOT_FOUND, 'metrics are not served: set METRICS_TOKEN (and scrape with Authorization: Bearer) or METRICS_PORT');
    }
    const token = bearerToken(req);
    // Hashes of equal length, so the comparison takes as long whatever the token sent.
    if (token === null || !timingSafeEqual(sha256(token), this.tokenHash)) {
      throw new AppError(ErrorCode.UNAUTHENTICATED, 'metrics need Authorization: Bearer <METRICS_TOKEN>');
    }
  }
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
