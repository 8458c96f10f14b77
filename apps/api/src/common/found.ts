import { AppError, ErrorCode } from '@tollgate/domain';

/** The row a lookup found, or a 404 `<what> not found` (what every admin read and change answers for a missing one). */
export function found<T>(row: T | null | undefined, what: string): T {
  if (row === null || row === undefined) throw new AppError(ErrorCode.NOT_FOUND, `${what} not found`);
  return row;
}
