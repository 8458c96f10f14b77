import { z } from 'zod';

/**
 * How many entries a read answers: `?top=` for a ranking (the top N tenants, routes, subjects), `?pageSize=` for a
 * list newest first, as every list names it (page-size.ts). Both were `?limit=`, which also names a limit and its
 * count: `limit` is still read, as a deprecated alias of the new name when that is left out (UPGRADING.md), and the
 * OpenAPI document marks it deprecated. Its bounds are the new name's, and a bad value is a 400 naming `limit`.
 */
type CountName = 'top' | 'pageSize';

const count = (max: number) => z.coerce.number().int().min(1).max(max);

/** The strict query of `fields` with the count `name` (1 to `max`, `fallback` when left out) and its alias `limit`. */
function withCount<N extends CountName, S extends z.ZodRawShape>(name: N, fields: S, max: number, fallback: number) {
  type Counted = z.output<z.ZodObject<S>> & Record<N, number>;
  const counted = { [name]: count(max).optional().meta({ default: fallback }) } as Record<N, z.ZodOptional<z.ZodNumber>>;
  const alias = count(max).optional().meta({ deprecated: true, description: `deprecated: the old name of ${name}, read when ${name} is left out` });
  return z.strictObject({ ...fields, ...counted, limit: alias }).transform((query) => {
    const { limit, ...rest } = query as Record<string, unknown>;
    return { ...rest, [name]: rest[name] ?? limit ?? fallback } as Counted;
  });
}

/** A ranking's query: `fields` and `?top=`. */
export const withTop = <S extends z.ZodRawShape>(fields: S, max: number, fallback: number) => withCount('top', fields, max, fallback);

/** A list's query whose only page is the newest entries: `fields` and `?pageSize=`. */
export const withPageSize = <S extends z.ZodRawShape>(fields: S, max: number, fallback: number) => withCount('pageSize', fields, max, fallback);
