import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppError, CLIENT_ADDRESS_HEADER, ErrorCode, verifyClientAddress } from '@tollgate/domain';
import type { FastifyRequest } from 'fastify';
import { API_CONFIG, type ApiConfig } from '../../config/config';

/**
 * Whose sign-in this is: the browser's address when the dashboard forwards it signed with `CLIENT_ADDRESS_SECRET`
 * (the dashboard's server makes every dashboard sign-in, so its own address says nothing), otherwise the client's
 * address as Fastify sees it (`X-Forwarded-For` only through `TRUST_PROXY`). A signed address that does not verify
 * is refused (403), never ignored: a dashboard with the wrong secret must not quietly share one budget again.
 */
@Injectable()
export class ClientAddress {
  private readonly log = new Logger(ClientAddress.name);

  constructor(@Inject(API_CONFIG) private readonly config: ApiConfig) {}

  async of(request: FastifyRequest): Promise<string> {
    const signed = request.headers[CLIENT_ADDRESS_HEADER];
    if (signed === undefined) return request.ip;
    const secret = this.config.login.clientAddressSecret;
    const verdict =
      secret === null ? { ok: false as const, reason: 'CLIENT_ADDRESS_SECRET is not set' } : typeof signed === 'string' ? await verifyClientAddress(secret, signed) : { ok: false as const, reason: 'malformed' };
    if (verdict.ok) return verdict.address;
    this.log.warn(`refused a signed client address from ${request.ip}: ${verdict.reason}`);
    throw new AppError(ErrorCode.FORBIDDEN, 'the signed client address is not valid (is CLIENT_ADDRESS_SECRET the same on the dashboard and the API?)');
  }
}
