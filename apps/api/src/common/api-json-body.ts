import { ApiBody, ApiResponse } from '@nestjs/swagger';
import { z } from 'zod';

/**
 * A zod schema as an OpenAPI 3.1 schema object. zod writes JSON Schema 2020-12, which OpenAPI 3.1 is; only the
 * `$schema` keyword goes, since the document says which dialect its schemas are.
 */
export function openApiSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}

/** The OpenAPI body of a route, from the zod schema that validates it, with an example. */
export const ApiJsonBody = (schema: z.ZodType, example: unknown) => ApiBody({ schema: { ...openApiSchema(schema, 'input'), example } });

export type Answering = (...args: never[]) => unknown;
/** `unknown` when a route answers exactly what the schema describes (both ways), `never` when the two drift. */
export type Describes<R, T> = [R] extends [T] ? ([T] extends [R] ? unknown : never) : never;

/**
 * The route's answer, documented from the zod schema the dashboard parses it with. Also a compile-time check: a
 * method whose answer is not the schema's output (a field missing, added, retyped, or optional on one side only)
 * fails the type check here (api-json-body.spec.ts).
 */
export function ApiAnswer<S extends z.ZodType>(schema: S, status: 200 | 201 | 202 = 200, description = 'the answer') {
  const document = ApiResponse({ status, description, content: { 'application/json': { schema: openApiSchema(schema, 'output') } } });
  return <M extends Answering>(target: object, key: string | symbol, descriptor: TypedPropertyDescriptor<M> & Describes<Awaited<ReturnType<M>>, z.output<S>>): void => {
    document(target, key, descriptor);
  };
}

/** A route that answers 204 with no body. */
export const ApiNoContent = (description: string) => ApiResponse({ status: 204, description });
