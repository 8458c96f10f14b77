import { expect } from 'vitest';

export interface CheckBody {
  allowed: boolean;
  ruleVersion: number;
  limits: { name: string; limit: number; remaining: number }[];
}

/** `/v1/check` for one tenant's `GET /v1/items`, with a service key, as a browser test's service would call it. */
export function checker(apiUrl: string, serviceKey: string, tenant: string) {
  const check = async (subject: string, path = '/v1/check') => {
    const res = await fetch(`${apiUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${serviceKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tenant, endpoint: 'GET /v1/items', subject }),
    });
    return { status: res.status, body: (await res.json()) as CheckBody };
  };

  /** The answer once the API enforces `version` or later: peeks, which charge nothing (plan quotas are tenant-wide). */
  const checkAtLeast = async (version: number) => {
    let last: Awaited<ReturnType<typeof check>> | undefined;
    await expect
      .poll(
        async () => {
          last = await check('probe', '/v1/check/peek');
          return last.status === 200 && last.body.ruleVersion >= version;
        },
        { timeout: 5_000, interval: 50 },
      )
      .toBe(true);
    return last!.body;
  };

  return { check, checkAtLeast };
}
