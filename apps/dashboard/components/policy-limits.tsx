'use client';

import type { Policy } from '@/lib/api-answers';
import { OwnerLimits } from './limit-row';

/** A policy's limits (each with Edit and Remove) and "Add limit": as a plan's are edited. */
export function PolicyLimits({ policy }: { policy: Policy }) {
  return (
    <OwnerLimits
      owner={{ kind: 'policy', id: policy.id, name: policy.name }}
      limits={policy.limits}
      empty="No limits: the policy only sets the cost of its requests."
    />
  );
}
