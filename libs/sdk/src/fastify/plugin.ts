import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { type EnforceOptions, enforce, type RouteLimit } from '../http/enforce';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Tollgate's check of this route: cost, endpoint, tenant/subject/ip resolvers; `false` skips the check. */
    tollgate?: RouteLimit<FastifyRequest> | false;
  }
}

export interface TollgateFastifyOptions extends EnforceOptions<FastifyRequest> {
  /** Check every route, not only those with `config.tollgate`; default false. */
  all?: boolean;
}

/**
 * Checks requests with Tollgate in an `onRequest` hook: denied → 429 with the decision's headers; allowed →
 * the same headers on the reply; Tollgate unavailable and the client failing closed → 503 with `Retry-After`.
 * Which routes: those with `config: { tollgate: { cost, … } }`, or all with `all: true` (`tollgate: false` opts out).
 */
const plugin: FastifyPluginAsync<TollgateFastifyOptions> = async (app, options) => {
  app.addHook('onRequest', async (request, reply) => {
    const route = request.routeOptions.config.tollgate;
    if (route === false || (route === undefined && !options.all)) return;
    const outcome = await enforce(options, route ?? {}, request, `${request.method} ${request.routeOptions.url ?? request.url}`);
    void reply.headers(outcome.headers);
    if (!outcome.pass) return reply.code(outcome.status).send(outcome.body);
  });
};

export const tollgatePlugin = fp(plugin, { name: '@tollgate/sdk', fastify: '5.x' });
