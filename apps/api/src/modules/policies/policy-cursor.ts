import { AppError, ErrorCode, POLICY_METHODS, routePatternSchema } from '@tollgate/domain';
import type { Prisma } from '@tollgate/db';
import { z } from 'zod';

/** Where a page of policies ends: the last policy's place in the list order (pattern, method, id). */
type Position = [pattern: string, method: string, id: string];

/** What a cursor we hand out holds: a valid pattern, method and id, so nothing else reaches the database (a NUL, a non-UUID). */
const positionSchema = z.tuple([routePatternSchema, z.enum(POLICY_METHODS), z.uuid()]);

/** The order of the policies list; `id` makes it total, so a cursor is a position in it. */
export const policyOrder: Prisma.EndpointPolicyOrderByWithRelationInput[] = [{ pattern: 'asc' }, { method: 'asc' }, { id: 'asc' }];

/** An opaque cursor for the page after `last`. It holds a position, not an id, so it outlives the policy's deletion. */
export function encodePolicyCursor(last: { pattern: string; method: string; id: string }): string {
  return Buffer.from(JSON.stringify([last.pattern, last.method, last.id] satisfies Position)).toString('base64url');
}

/** The policies after the cursor's position, as a filter; a cursor we did not hand out is a 400 on `cursor`. */
export function afterPolicyCursor(cursor: string): Prisma.EndpointPolicyWhereInput {
  const [pattern, method, id] = decode(cursor);
  return {
    OR: [
      { pattern: { gt: pattern } },
      { pattern, method: { gt: method } },
      { pattern, method, id: { gt: id } },
    ],
  };
}

function decode(cursor: string): Position {
  try {
    const position = positionSchema.safeParse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
    if (position.success) return position.data;
  } catch {
    // falls through to the error below
  }
  throw new AppError(ErrorCode.VALIDATION_FAILED, 'cursor: not a cursor this API handed out', 'cursor');
}
