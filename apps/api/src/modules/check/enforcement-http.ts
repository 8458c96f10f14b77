import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Logger } from '@nestjs/common';
import { AppError, ErrorCode } from '@tollgate/domain';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { replyWithError } from '../../common/error.filter';

/** The forward-auth route; Envoy's `ext_authz` with `path_prefix` appends the original path to it. */
export const FORWARD_AUTH_ROUTE = '/v1/forward-auth';

/** Route prefixes the enforcement instance serves: the route itself and anything below it. */
const PREFIXES = ['/v1/check', FORWARD_AUTH_ROUTE];

/** Errors the enforcement routes answer without a log line of their own (the outage reporter counts them). */
const QUIET_CODES: ReadonlySet<ErrorCode> = new Set([ErrorCode.REDIS_UNAVAILABLE]);

type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The enforcement routes' own Fastify instance, on the API's HTTP server and port (ADR 0007). The server hands a
 * request to it when its target is under `/v1/check` or `/v1/forward-auth`, and to Nest's instance otherwise, so
 * the hot path runs none of the request hooks and middleware of the Nest application (its adapter's lifecycle
 * hooks, the logging middleware's matcher): only Fastify's routing, body parsing and the route itself.
 */
export class EnforcementHttp {
  readonly fastify: FastifyInstance;
  private readonly log = new Logger('Enforcement');

  constructor(options: Pick<FastifyServerOptions, 'bodyLimit' | 'trustProxy' | 'frameworkErrors' | 'clientErrorHandler'>) {
    this.fastify = Fastify(options);
    // JSON routes take JSON only: `text/plain` is a 415, not a string body (as on Nest's instance).
    this.fastify.removeContentTypeParser('text/plain');
    // A check refused because Redis did not decide is counted and logged per cause and interval (OutageReporter),
    // not once per request.
    this.fastify.setErrorHandler((err, _req, reply) => replyWithError(this.log, reply, err, QUIET_CODES));
    this.fastify.setNotFoundHandler((req, reply) => replyWithError(this.log, reply, new AppError(ErrorCode.NOT_FOUND, `Cannot ${req.method} ${req.url}`)));
  }

  /** Whether `url` (a request target) is one of the enforcement routes'. */
  static serves(url: string | undefined): boolean {
    if (!url) return false;
    for (const prefix of PREFIXES) {
      if (url.startsWith(prefix)) {
        const next = url.charCodeAt(prefix.length);
        // End, `/` or `?`: `/v1/checks` is not `/v1/check`.
        if (Number.isNaN(next) || next === 47 || next === 63) return true;
      }
    }
    return false;
  }

  /**
   * Fastify's `serverFactory` for Nest's instance: the HTTP server both instances answer on, with the timeouts
   * Fastify would give a server of its own.
   */
  serverFactory() {
    return (nest: RequestHandler, options: FastifyServerOptions): Server => {
      const enforcement: RequestHandler = (req, res) => this.fastify.routing(req, res);
      const server = createServer((req, res) => (EnforcementHttp.serves(req.url) ? enforcement(req, res) : nest(req, res)));
      if (options.keepAliveTimeout !== undefined) server.keepAliveTimeout = options.keepAliveTimeout;
      if (options.requestTimeout !== undefined) server.requestTimeout = options.requestTimeout;
      server.setTimeout(options.connectionTimeout ?? 0);
      return server;
    };
  }
}
