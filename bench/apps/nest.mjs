// The small Nest 12 + Fastify apps that bench/enforcement.mjs compares Tollgate's `/v1/check` with. Plain
// JavaScript without a build step, so decorators are applied as functions, the way TypeScript would apply them.
// Each app is its own process: PORT and REDIS_URL come from the environment; it answers
// `POST /v1/check` with `{ tenant, endpoint, subject }` and stops on SIGTERM.
import 'reflect-metadata';
import { BadRequestException, Body, Controller, HttpCode, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Redis } from 'ioredis';

export const BIG = 1_000_000_000;

/** The limits every peer enforces, of the same sizes as the bench tenant's plan in Tollgate. */
export const LIMITS = {
  second: { ttlMs: 1_000, limit: 1_000_000 },
  minute: { ttlMs: 60_000, limit: BIG },
  daily: { ttlMs: 86_400_000, limit: BIG },
};

export function redisFromEnv() {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0');
  redis.on('error', (err) => console.error('redis:', err.message));
  return redis;
}

/**
 * A controller class with one `POST /v1/<path>` route (HTTP 200) per entry of `routes`, whose handler gets the
 * parsed JSON body; `decorate(proto, name, descriptor)` adds further method decorators (e.g. a throttler's).
 */
export function checkController(routes) {
  class CheckController {}
  for (const [path, { handler, decorate = [] }] of Object.entries(routes)) {
    const name = path.replaceAll(/\W/g, '_') || 'check';
    Object.defineProperty(CheckController.prototype, name, { value: handler, writable: true, configurable: true });
    const descriptor = Object.getOwnPropertyDescriptor(CheckController.prototype, name);
    for (const d of [Post(path), HttpCode(200), ...decorate]) d(CheckController.prototype, name, descriptor);
    Body()(CheckController.prototype, name, 0);
  }
  Controller('v1')(CheckController);
  return CheckController;
}

/** Builds `{ controllers, providers, imports }` into a module, listens on PORT, closes on SIGTERM. */
export async function serve(metadata, onClose = () => undefined) {
  class BenchModule {}
  Module(metadata)(BenchModule);
  const app = await NestFactory.create(BenchModule, new FastifyAdapter(), { logger: ['error', 'warn'] });
  await app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
  process.once('SIGTERM', () => {
    void app.close().then(onClose).finally(() => process.exit(0));
  });
}

/** The body fields every app reads; a request without a tenant is a 400, as in Tollgate. */
export function trackerOf(body) {
  if (typeof body?.tenant !== 'string' || typeof body.endpoint !== 'string') {
    throw new BadRequestException('tenant and endpoint are required');
  }
  return body.tenant;
}
