import type { z } from 'zod';

/** Thrown when the environment does not satisfy an app's config schema; names every bad key at once. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses environment variables with `schema` and maps them to the app's nested config with `shape`;
 * the result is deeply frozen. Every bad key is reported, not just the first.
 */
export function loadConfig<S extends z.ZodType, C extends object>(
  schema: S,
  env: Record<string, string | undefined>,
  shape: (values: z.infer<S>) => C,
): Readonly<C> {
  const result = schema.safeParse(env);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`));
  }
  return deepFreeze(shape(result.data));
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
