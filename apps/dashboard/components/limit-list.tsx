import type { LimitInForce } from '@/lib/api-answers';
import { LimitSummary } from './limit-summary';
import './limits.css';

interface LimitListProps {
  limits: LimitInForce[];
  /** A policy's limits are named `<policy>-<limit>`, as a check's answer names them. */
  prefix?: string;
  testId: (name: string) => string;
}

/** Limits to read, not to change: what a tenant is held to. */
export function LimitList({ limits, prefix, testId }: LimitListProps) {
  return (
    <ul className="limit-list">
      {limits.map((limit) => {
        const name = prefix ? `${prefix}-${limit.name}` : limit.name;
        return (
          <li key={limit.name} className="limit-row" data-testid={testId(name)}>
            <LimitSummary name={name} limit={limit} />
          </li>
        );
      })}
    </ul>
  );
}
