export { TollgateClient, type TollgateClientOptions, type CheckInput } from './client';
export { AppError as TollgateError, ErrorCode } from '@tollgate/domain';
