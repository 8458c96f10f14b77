import { applyDecorators } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';
import type { z } from 'zod';
import { openApiSchema } from './api-json-body';

/** What the document says of one parameter beyond its type: a description, or a description and an example. */
type About = string | { description?: string; example?: unknown };

type JsonSchema = Record<string, unknown>;

/** The paging parameters of every list (page-size.ts), unless `about` says otherwise. */
const PAGING: ReadonlyArray<[string, About]> = [
  ['pageSize', 'items per page'],
  ['cursor', 'nextCursor of the previous page'],
];

/**
 * A route's query string in the OpenAPI document, from the zod schema that validates it (`ZodPipe`): one parameter
 * per field, typed as the schema reads it (integers with their bounds and default, enums, UUIDs, ISO 8601 times),
 * required where the schema requires it. A field refused whatever its value (a renamed parameter, `z.never()`) is
 * left out; one the schema marks deprecated (an old name still read, entry-count.ts) is a deprecated parameter. `about`
 * adds what a type cannot say.
 */
export function ApiQueryOf<S extends z.ZodType<object>>(schema: S, about: { [K in keyof z.input<S>]?: About } = {}): MethodDecorator {
  const json = openApiSchema(schema, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  const required = new Set(json.required ?? []);
  const described = new Map<string, About>([...PAGING, ...Object.entries(about as Record<string, About>)]);
  const parameters = Object.entries(json.properties ?? {})
    .filter(([, field]) => !refusesAll(field))
    .map(([name, field]) => {
      const said = described.get(name);
      const { description, example } = typeof said === 'string' ? { description: said, example: undefined } : (said ?? {});
      const deprecated = field.deprecated === true ? { deprecated: true } : {};
      return ApiQuery({ name, required: required.has(name), schema: withoutFormatPattern(field), ...deprecated, ...(description ? { description } : {}), ...(example !== undefined ? { example } : {}) });
    });
  return applyDecorators(...parameters);
}

/** `z.never()`: `{ "not": {} }`. */
const refusesAll = (field: JsonSchema) => typeof field.not === 'object' && field.not !== null && Object.keys(field.not).length === 0;

/** zod writes a UUID's or a time's regular expression beside its `format`, which says the same to a reader. */
function withoutFormatPattern(field: JsonSchema): JsonSchema {
  if (typeof field.format !== 'string') return field;
  const { pattern: _sameAsFormat, ...rest } = field;
  return rest;
}
