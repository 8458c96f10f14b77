import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { AppError, ErrorCode } from '@tollgate/domain';

/**
 * Fastify's `clientErrorHandler`: a request Node's HTTP parser refused before any route saw it (request line and
 * headers over 16 KiB, a request that never arrived in full, bytes that are not HTTP) is answered in our error
 * envelope, like every other error, and the connection is closed (as Node and Fastify do).
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const error =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? new AppError(ErrorCode.HEADERS_TOO_LARGE, 'the request line and headers are too large')
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new AppError(ErrorCode.REQUEST_TIMEOUT, 'the request did not arrive in time')
        : new AppError(ErrorCode.VALIDATION_FAILED, 'not a well-formed HTTP request');
  const body = JSON.stringify(error.toBody());
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
