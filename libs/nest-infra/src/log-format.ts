import type { DestinationStream } from 'pino';
import pretty from 'pino-pretty';
import { z } from 'zod';

/**
 * LOG_FORMAT: `json` (one JSON object a line, for a log collector: the default) or `pretty` (one readable line an
 * entry, for a person at a terminal; `npm start` chooses it when its own output is a terminal).
 */
export const logFormatEnv = {
  LOG_FORMAT: z.enum(['json', 'pretty']).default('json'),
};

export type LogFormat = z.infer<typeof logFormatEnv.LOG_FORMAT>;

/**
 * Where the logs go: nowhere but pino's own stdout for `json`; for `pretty`, pino-pretty on stdout, written
 * synchronously as pino's is. A line: time, level, the Nest context, the message, and for a request its method, URL,
 * status and time (not its headers); an error's stack below it.
 */
export function logDestination(format: LogFormat): DestinationStream | undefined {
  if (format === 'json') return undefined;
  return pretty({
    sync: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,context,req,res,responseTime',
    messageFormat: '{if context}{context}: {end}{msg}{if req.method} {req.method} {req.url}{end}{if res.statusCode} → {res.statusCode} ({responseTime} ms){end}',
  });
}
