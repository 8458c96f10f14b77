/**
 * Headers a client adds to its own request to be decided as another one: every header some gateway uses to tell
 * Tollgate the original method and URI, alone and together. Behind a shipped gateway configuration none of them may
 * change a decision.
 */
export const SPOOFED_ORIGINALS: readonly Record<string, string>[] = [
  { 'x-forwarded-method': 'GET', 'x-forwarded-uri': '/v1/anything-else' },
  { 'x-original-method': 'GET', 'x-original-uri': '/v1/anything-else' },
  { 'x-forwarded-method': 'GET', 'x-forwarded-uri': '/v1/anything-else', 'x-original-method': 'GET', 'x-original-uri': '/v1/anything-else' },
  { 'x-forwarded-uri': '/v1/anything-else' },
  { 'x-original-uri': '/v1/anything-else' },
  { 'x-forwarded-method': 'GET' },
];

/** The i-th spoofing attempt: one of SPOOFED_ORIGINALS, and a client-chosen X-Forwarded-For that differs every time. */
export function spoofedHeaders(i: number): Record<string, string> {
  return { ...SPOOFED_ORIGINALS[i % SPOOFED_ORIGINALS.length], 'x-forwarded-for': `203.0.113.${(i % 250) + 1}` };
}
