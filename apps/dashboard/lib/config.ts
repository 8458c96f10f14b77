import { z } from 'zod';

/** The only reader of process.env in the dashboard's app (server.mts reads its own server's settings). Validated once, on first import, and frozen. */
export const dashboardEnvSchema = z.object({
  TOLLGATE_API_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL, e.g. http://127.0.0.1:3000' })
    .default('http://127.0.0.1:3000'),
  /** Where a tenant at 100 % of a limit asks for more (a plans page, a support form, mailto:): its portal links to it. */
  TENANT_UPGRADE_URL: z.url({ protocol: /^(https?|mailto)$/, error: 'must be an http(s) or mailto: URL, e.g. https://example.com/pricing' }).optional(),
});

export interface DashboardConfig {
  readonly api: { readonly baseUrl: string };
  /** TENANT_UPGRADE_URL, or null: the portal then tells a tenant at 100 % to ask its operator. */
  readonly tenantUpgradeUrl: string | null;
}

function loadConfig(env: NodeJS.ProcessEnv): DashboardConfig {
  const parsed = dashboardEnvSchema.safeParse({ TOLLGATE_API_URL: env.TOLLGATE_API_URL || undefined, TENANT_UPGRADE_URL: env.TENANT_UPGRADE_URL || undefined });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid dashboard configuration:\n  ${problems.join('\n  ')}`);
  }
  return Object.freeze({
    api: Object.freeze({ baseUrl: parsed.data.TOLLGATE_API_URL.replace(/\/+$/, '') }),
    tenantUpgradeUrl: parsed.data.TENANT_UPGRADE_URL ?? null,
  });
}

export const config = loadConfig(process.env);
