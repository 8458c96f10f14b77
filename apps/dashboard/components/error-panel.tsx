import type { ReactNode } from 'react';
import type { Problem } from '@/lib/session';
import { RetryButton } from './retry-button';

export function ErrorPanel({ problem, action = <RetryButton /> }: { problem: Problem; action?: ReactNode }) {
  return (
    <section className="card panel panel-error" role="alert" data-testid="error-panel">
      <div className="panel-icon" aria-hidden="true">
        !
      </div>
      <h2>{problem.title}</h2>
      <p>{problem.message}</p>
      {problem.code && (
        <p className="muted">
          Code <code>{problem.code}</code>
        </p>
      )}
      {action}
    </section>
  );
}
