import { Injectable, type PipeTransform } from '@nestjs/common';
import { AppError, ErrorCode, MAX_RULE_VERSION } from '@tollgate/domain';
import { z } from 'zod';

const uuid = z.uuid();

/** A path id: anything that is not a well-formed id is simply not found (the same 404 as an unknown one). */
@Injectable()
export class IdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (!uuid.safeParse(value).success) throw new AppError(ErrorCode.NOT_FOUND, 'not found');
    return value;
  }
}

/** A path version number: anything but a positive integer a version can have is simply not found. */
@Injectable()
export class VersionPipe implements PipeTransform<string, number> {
  transform(value: string): number {
    if (!/^[1-9]\d{0,9}$/.test(value) || Number(value) > MAX_RULE_VERSION) throw new AppError(ErrorCode.NOT_FOUND, 'not found');
    return Number(value);
  }
}
