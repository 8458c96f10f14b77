/** A plan limit as the admin API shows it. */
export interface LimitView {
  id: string;
  name: string;
  windowS: number;
  limit: number;
  algorithm: string;
  burst: number | null;
}

export interface PlanView {
  id: string;
  slug: string;
  name: string;
  tenantCount: number;
  limits: LimitView[];
}

export function toLimitView(l: LimitView): LimitView {
  return { id: l.id, name: l.name, windowS: l.windowS, limit: l.limit, algorithm: l.algorithm, burst: l.burst };
}
