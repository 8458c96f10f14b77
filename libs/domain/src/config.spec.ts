import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config';

const schema = z.object({ PORT: z.coerce.number().int().default(3000), URL: z.url(), MODE: z.enum(['a', 'b']).default('a') });

describe('loadConfig', () => {
  it('maps env to a nested, deeply frozen config with defaults', () => {
    const config = loadConfig(schema, { URL: 'http://x' }, (e) => ({ http: { port: e.PORT }, url: e.URL, mode: e.MODE }));
    expect(config).toEqual({ http: { port: 3000 }, url: 'http://x', mode: 'a' });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.http)).toBe(true);
  });

  it('names every bad key at once', () => {
    try {
      loadConfig(schema, { PORT: 'abc', MODE: 'c' }, (e) => e);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const message = (err as ConfigError).message;
      for (const key of ['PORT', 'URL', 'MODE']) expect(message).toContain(`${key}:`);
    }
  });
});
