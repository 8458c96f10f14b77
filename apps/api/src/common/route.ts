import { applyDecorators, Controller, Delete, Get, HttpCode, Patch, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { z } from 'zod';
import { Access, type AccessKind } from './access.decorator';
import { type Answering, ApiAnswer, ApiJsonBody, type Describes } from './api-json-body';

const METHODS = { GET: Get, POST: Post, PUT: Put, PATCH: Patch, DELETE: Delete } as const;
type Method = keyof typeof METHODS;

/** A route as `METHOD` or `METHOD path` (`'GET :planId'`), the path relative to the controller's. */
type Route = Method | `${Method} ${string}`;

interface RouteOptions {
  /** The JSON body the route takes, documented with `example`. */
  body?: z.ZodType;
  example?: unknown;
  /** The answer's status when it is not the method's own (201 for POST, 200 for the others). */
  status?: 200 | 201 | 202;
}

/**
 * A route with everything the controllers say of one: its method and path, its OpenAPI summary, who may call it, its
 * JSON body with an example (if it takes one) and its answer, which is type checked against the method's as
 * `ApiAnswer` does. Extra answers (`@ApiResponse`) and queries (`@ApiQueryOf`) stay beside it.
 */
export function AccessRoute<S extends z.ZodType>(access: AccessKind | readonly [AccessKind, ...AccessKind[]], route: Route, summary: string, answer: S, options: RouteOptions = {}) {
  const [method, path] = route.split(' ', 2) as [Method, string | undefined];
  const usual = method === 'POST' ? 201 : 200;
  const status = options.status ?? usual;
  const documentAnswer = ApiAnswer(answer, status);
  const kinds: [AccessKind, ...AccessKind[]] = typeof access === 'string' ? [access] : [...access];
  // Applied in the order a stack of the same decorators written above the method is (the lowest first).
  const rest = applyDecorators(
    ...(options.body ? [ApiJsonBody(options.body, options.example)] : []),
    Access(...kinds),
    ...(status === usual ? [] : [HttpCode(status)]),
    ApiOperation({ summary }),
    METHODS[method](path),
  );
  return <M extends Answering>(target: object, key: string | symbol, descriptor: TypedPropertyDescriptor<M> & Describes<Awaited<ReturnType<M>>, z.output<S>>): void => {
    documentAnswer(target, key, descriptor);
    rest(target, key, descriptor);
  };
}

/** An admin route only operators may call (`AccessRoute` with `operator`). */
export const OperatorRoute = <S extends z.ZodType>(route: Route, summary: string, answer: S, options: RouteOptions = {}) =>
  AccessRoute('operator', route, summary, answer, options);

/** A controller whose routes take a bearer credential: its OpenAPI tag, the bearer security scheme, and its path. */
export const BearerController = (tag: string, path: string) => applyDecorators(Controller(path), ApiBearerAuth(), ApiTags(tag));
