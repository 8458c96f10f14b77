import 'reflect-metadata';
import { HTTP_CODE_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { RequestMethod } from '@nestjs/common';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ACCESS_KEY } from './access.decorator';
import { AccessRoute, OperatorRoute } from './route';

const answer = z.object({ id: z.string() });
const body = z.object({ name: z.string() });

// As with ApiAnswer, the type check is part of the test: the `@ts-expect-error` fails `typecheck` once a drifting
// answer would be accepted through the route decorator.
class Routes {
  @OperatorRoute('GET :thingId', 'Get a thing', answer)
  get(): Promise<{ id: string }> {
    return Promise.resolve({ id: 'a' });
  }

  @OperatorRoute('POST :thingId/touch', 'Touch a thing', answer, { body, example: { name: 'x' }, status: 200 })
  touch(): { id: string } {
    return { id: 'a' };
  }

  @AccessRoute(['operator', 'tenant'], 'POST', 'Create a thing', answer, { body, example: { name: 'x' } })
  create(): { id: string } {
    return { id: 'a' };
  }

  // @ts-expect-error: the answer has a field the schema does not describe.
  @OperatorRoute('GET', 'List things', answer)
  extra(): Promise<{ id: string; secret: string }> {
    return Promise.resolve({ id: 'a', secret: 'never documented' });
  }
}

const meta = (key: string, handler: object) => Reflect.getMetadata(key, handler) as unknown;

describe('OperatorRoute and AccessRoute', () => {
  it('route, guard and document a handler as the decorators they stand for', () => {
    const { get, touch, create } = Routes.prototype;
    expect([meta(METHOD_METADATA, get), meta(PATH_METADATA, get), meta(ACCESS_KEY, get)]).toEqual([RequestMethod.GET, ':thingId', ['operator']]);
    expect(meta('swagger/apiOperation', get)).toMatchObject({ summary: 'Get a thing' });
    expect(Object.keys(meta('swagger/apiResponse', get) as object)).toEqual(['200']);
    expect(meta(HTTP_CODE_METADATA, get)).toBeUndefined();
    // A POST that answers 200 says so to Nest and to the document; its body is documented with the example.
    expect([meta(METHOD_METADATA, touch), meta(HTTP_CODE_METADATA, touch)]).toEqual([RequestMethod.POST, 200]);
    expect(Object.keys(meta('swagger/apiResponse', touch) as object)).toEqual(['200']);
    expect(meta('swagger/apiParameters', touch)).toEqual([expect.objectContaining({ in: 'body', schema: expect.objectContaining({ example: { name: 'x' } }) })]);
    // A POST's own 201 needs no HttpCode; a route may name several kinds of caller.
    expect([meta(PATH_METADATA, create), meta(HTTP_CODE_METADATA, create), meta(ACCESS_KEY, create)]).toEqual(['/', undefined, ['operator', 'tenant']]);
    expect(Object.keys(meta('swagger/apiResponse', create) as object)).toEqual(['201']);
  });
});
