import { Injectable, type PipeTransform } from '@nestjs/common';
import { parseOrThrow } from '@tollgate/domain';
import type { z } from 'zod';

/** Validates a body, query or param with a zod schema; a failure is a 400 `validation_failed` naming the field. */
@Injectable()
export class ZodPipe<T extends z.ZodType> implements PipeTransform<unknown, z.infer<T>> {
  constructor(private readonly schema: T) {}

  transform(value: unknown): z.infer<T> {
    return parseOrThrow(this.schema, value);
  }
}
