import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import protobuf from 'protobufjs';
import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { AppError, type CheckAnswer, ErrorCode } from '@tollgate/domain';
import type { AccessKind } from '../../../common/access.decorator';
import { API_CONFIG, type ApiConfig } from '../../../config/config';
import { Authenticator } from '../../auth/authenticator';
import { RulesInForce } from '../../rules/rules-in-force';
import { scopeOf } from '../enforcement.routes';
import { CheckQuota } from '../use-cases/check-quota.use-case';
import { rateLimitResponse, type RateLimitResponseMessage } from './rls-answer';
import { mapRateLimitRequest, type RateLimitRequestMessage, RlsInvalid } from './rls-mapping';

/** The .proto files of the messages served (Envoy's published names and numbers), next to this file in src and dist. */
export const RLS_PROTO_DIR = join(__dirname, 'proto');
export const RLS_PROTO_FILE = 'envoy/service/ratelimit/v3/rls.proto';

/**
 * How the messages are decoded and encoded: field names as in the .proto (`hits_addend`), enums by name, 64-bit
 * integers as strings, and no defaults filled in, so that a descriptor's `hits_addend` tells "absent" from "0".
 */
export const RLS_LOADER_OPTIONS: protoLoader.Options = { keepCase: true, enums: String, longs: String, defaults: false, oneofs: true, includeDirs: [RLS_PROTO_DIR] };

const SERVICE: readonly AccessKind[] = ['service'];

/** gRPC status of each error a check can end in; anything else is INTERNAL (and logged). */
const STATUS_OF: Partial<Record<ErrorCode, grpc.status>> = {
  [ErrorCode.VALIDATION_FAILED]: grpc.status.INVALID_ARGUMENT,
  [ErrorCode.UNAUTHENTICATED]: grpc.status.UNAUTHENTICATED,
  [ErrorCode.FORBIDDEN]: grpc.status.PERMISSION_DENIED,
  [ErrorCode.NOT_FOUND]: grpc.status.NOT_FOUND,
  [ErrorCode.REDIS_UNAVAILABLE]: grpc.status.UNAVAILABLE,
};

/** The service definition of `envoy.service.ratelimit.v3.RateLimitService` (the server's and the tests' client's). */
export function rateLimitServiceDefinition(): grpc.ServiceDefinition {
  const definition = protoLoader.loadSync(RLS_PROTO_FILE, RLS_LOADER_OPTIONS);
  const service = definition['envoy.service.ratelimit.v3.RateLimitService'];
  if (!service || !('ShouldRateLimit' in service)) throw new Error('RateLimitService missing from its .proto');
  return service as grpc.ServiceDefinition;
}

/**
 * The answer's encoder: protobufjs's own for RateLimitResponse, on the message as rateLimitResponse builds it (enums
 * as numbers, Struct values by protobufjs's names). proto-loader's first copies every object into a message instance
 * (`fromObject`) and then encodes that; the copy was most of the encoding's CPU and allocations on every call.
 */
export function responseEncoder(): (message: RateLimitResponseMessage) => Buffer {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => (isAbsolute(target) ? target : join(RLS_PROTO_DIR, target));
  root.loadSync(RLS_PROTO_FILE, { keepCase: true });
  const Response = root.lookupType('envoy.service.ratelimit.v3.RateLimitResponse');
  return (message) => Response.encode(message).finish() as Buffer;
}

/**
 * Envoy's rate limit service (`envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit`) on a gRPC listener of
 * its own (`GRPC_HOST`:`GRPC_PORT`, plaintext HTTP/2, or TLS with `GRPC_TLS_CERT`/`GRPC_TLS_KEY`), for Envoy, Istio
 * and Envoy Gateway. The caller is a service key (metadata `authorization: Bearer …` or the forward-auth service key
 * header), scoped as on forward-auth; the request becomes one check (`mapRateLimitRequest`), decided by CheckQuota like
 * every HTTP check (usage, metrics, denial samples, failure modes, decision deadline). Unset `GRPC_PORT`: nothing
 * listens. On shutdown it takes no new calls and answers those in flight before Redis is disconnected (the process's
 * shutdown bound caps the wait).
 * docs/adr/0026-envoy-rate-limit-service-over-grpc.md.
 */
@Injectable()
export class RlsServer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly log = new Logger('RateLimitService');
  private server: grpc.Server | null = null;
  private boundPort: number | null = null;
  private inFlight = 0;

  constructor(
    private readonly authenticator: Authenticator,
    private readonly checkQuota: CheckQuota,
    private readonly inForce: RulesInForce,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  /** Calls being decided now (what a shutdown waits for). */
  get callsInFlight(): number {
    return this.inFlight;
  }

  /** The port it listens on, or null when GRPC_PORT is unset. */
  get port(): number | null {
    return this.boundPort;
  }

  async onApplicationBootstrap(): Promise<void> {
    const { listener } = this.config.grpc;
    if (listener === null) return;
    const server = new grpc.Server({
      'grpc.max_receive_message_length': this.config.http.bodyLimitBytes,
      'grpc.max_send_message_length': this.config.http.bodyLimitBytes,
      // Channelz (gRPC's own introspection service, which nothing here serves) counted every call: ~5 % of a call's CPU.
      'grpc.enable_channelz': 0,
    });
    const { ShouldRateLimit } = rateLimitServiceDefinition();
    server.addService({ ShouldRateLimit: { ...ShouldRateLimit!, responseSerialize: responseEncoder() } }, { ShouldRateLimit: this.shouldRateLimit });
    const credentials = listener.tls
      ? grpc.ServerCredentials.createSsl(null, [{ cert_chain: readFileSync(listener.tls.certFile), private_key: readFileSync(listener.tls.keyFile) }], false)
      : grpc.ServerCredentials.createInsecure();
    const address = `${listener.host.includes(':') ? `[${listener.host}]` : listener.host}:${listener.port}`;
    this.boundPort = await new Promise<number>((resolve, reject) => server.bindAsync(address, credentials, (err, port) => (err ? reject(err) : resolve(port))));
    this.server = server;
    this.log.log(`envoy.service.ratelimit.v3.RateLimitService on ${listener.host}:${this.boundPort} (${listener.tls ? 'TLS' : 'plaintext'})`);
  }

  /**
   * Before the shutdown hooks (which disconnect Redis), as the HTTP server is closed before them: no new calls, the
   * calls in flight are answered with Redis still there, then the connections close.
   */
  async beforeApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
  }

  private readonly shouldRateLimit = (call: grpc.ServerUnaryCall<RateLimitRequestMessage, RateLimitResponseMessage>, callback: grpc.sendUnaryData<RateLimitResponseMessage>): void => {
    this.inFlight += 1;
    this.decide(call)
      .then(
        (response) => callback(null, response),
        (err: unknown) => callback(this.statusOf(err)),
      )
      .finally(() => (this.inFlight -= 1));
  };

  private async decide(call: grpc.ServerUnaryCall<RateLimitRequestMessage, RateLimitResponseMessage>): Promise<RateLimitResponseMessage> {
    const caller = await this.authenticate(call.metadata);
    const check = mapRateLimitRequest(call.request, this.config.grpc.mapping);
    if (check.refusal) {
      // Counted as forward-auth counts a key it does not look up: refused, without a tenant.
      this.checkQuota.refuseUnread(scopeOf(caller), check.refusal, check.target.endpoint);
      const refused: CheckAnswer = { allowed: false, mode: 'enforce', retryAfterMs: 0, ruleVersion: this.inForce.enforced().version, limits: [], headers: {}, reason: check.refusal };
      return rateLimitResponse(refused, check.descriptorCount);
    }
    const answer = await this.checkQuota.execute(scopeOf(caller), check.target, check.cost, check.operation);
    return rateLimitResponse(answer, check.descriptorCount);
  }

  /** A service key, from the forward-auth service key header when the metadata has it, else `authorization: Bearer`. */
  private authenticate(metadata: grpc.Metadata) {
    const first = (name: string) => {
      const value = metadata.get(name)[0];
      return typeof value === 'string' ? value : undefined;
    };
    const gatewayHeader = this.config.forwardAuth.serviceKeyHeader;
    const gatewayKey = first(gatewayHeader);
    const headers = gatewayKey === undefined ? { authorization: first('authorization') } : { [gatewayHeader]: gatewayKey };
    return this.authenticator.authenticate({ headers }, SERVICE, gatewayKey !== undefined);
  }

  private statusOf(err: unknown): Partial<grpc.StatusObject> {
    if (err instanceof RlsInvalid) return { code: grpc.status.INVALID_ARGUMENT, details: err.message };
    if (err instanceof AppError) {
      const code = STATUS_OF[err.code];
      if (code !== undefined) return { code, details: err.message };
    }
    this.log.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    return { code: grpc.status.INTERNAL, details: 'internal error' };
  }
}
