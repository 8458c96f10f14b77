import { ApiBody } from '@nestjs/swagger';
import { z } from 'zod';

/** The OpenAPI body of a route, from the zod schema that validates it, with an example. */
export const ApiJsonBody = (schema: z.ZodType, example: unknown) => ApiBody({ schema: { ...(z.toJSONSchema(schema, { io: 'input' }) as object), example } });
