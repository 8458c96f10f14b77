import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiAnswer } from './api-json-body';

const answer = z.object({ id: z.string(), count: z.int(), note: z.string().optional() });

// The type check is the test: each `@ts-expect-error` below fails `npm run typecheck` once the drift it marks
// would be accepted.
class Routes {
  @ApiAnswer(answer)
  exact(): Promise<{ id: string; count: number }> {
    return Promise.resolve({ id: 'a', count: 1 });
  }

  @ApiAnswer(answer, 201)
  synchronous(): { id: string; count: number; note?: string } {
    return { id: 'a', count: 1, note: 'an optional field, optional in the answer too' };
  }

  // @ts-expect-error: a field the schema has as optional is always there: the schema should say so.
  @ApiAnswer(answer)
  alwaysNoted(): Promise<{ id: string; count: number; note: string }> {
    return Promise.resolve({ id: 'a', count: 1, note: 'always' });
  }

  // @ts-expect-error: a field of the schema is missing from the answer.
  @ApiAnswer(answer)
  missing(): Promise<{ id: string }> {
    return Promise.resolve({ id: 'a' });
  }

  // @ts-expect-error: the answer has a field the schema does not describe.
  @ApiAnswer(answer)
  extra(): Promise<{ id: string; count: number; secret: string }> {
    return Promise.resolve({ id: 'a', count: 1, secret: 'never documented' });
  }

  // @ts-expect-error: a field of another type.
  @ApiAnswer(answer)
  retyped(): Promise<{ id: number; count: number }> {
    return Promise.resolve({ id: 1, count: 1 });
  }
}

describe('ApiAnswer', () => {
  it('documents the answer from the schema, without the JSON Schema dialect', () => {
    const responses = Reflect.getMetadata('swagger/apiResponse', Routes.prototype.synchronous) as Record<string, { content: Record<string, { schema: Record<string, unknown> }> }>;
    const schema = responses['201']!.content['application/json']!.schema;
    expect(schema).not.toHaveProperty('$schema');
    expect(schema).toMatchObject({ type: 'object', required: ['id', 'count'], properties: { id: { type: 'string' }, count: { type: 'integer' } } });
  });
});
