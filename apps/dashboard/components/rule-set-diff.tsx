import Link from 'next/link';
import type { ReactNode } from 'react';
import type { RuleSetChange } from '@/lib/api-answers';
import { formatCount, formatJsonValue } from '@/lib/format';

interface RuleSetDiffPanelProps {
  title: string;
  description: ReactNode;
  changes: RuleSetChange[];
  closeHref: string;
}

/** What differs between two rule sets, one changed leaf per row: its path, then before → after. */
export function RuleSetDiffPanel({ title, description, changes, closeHref }: RuleSetDiffPanelProps) {
  return (
    <section className="card diff-panel" aria-labelledby="rule-set-diff-title" data-testid="rule-set-diff">
      <header className="plan-card-header">
        <div>
          <h2 id="rule-set-diff-title">{title}</h2>
          <p className="diff-description">{description}</p>
        </div>
        <span className="tenant-count">
          {changes.length === 0 ? 'No changes' : `${formatCount(changes.length)} ${changes.length === 1 ? 'change' : 'changes'}`}
        </span>
        <Link href={closeHref} className="btn btn-secondary btn-sm" data-testid="rule-set-diff-close">
          Close
        </Link>
      </header>
      {changes.length === 0 ? (
        <p className="panel muted" data-testid="rule-set-diff-empty">
          No changes: both rule sets are the same.
        </p>
      ) : (
        <ul className="diff-list">
          {changes.map((change) => (
            <li key={change.path} className="diff-row" data-testid="rule-set-change">
              <code className="diff-path">{change.path || '(the whole rule set)'}</code>
              <div className="diff-values">
                <DiffValue side="before" value={change.before} />
                <span className="diff-arrow" aria-hidden="true">
                  →
                </span>
                <DiffValue side="after" value={change.after} />
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function DiffValue({ side, value }: { side: 'before' | 'after'; value: unknown }) {
  const label = side === 'before' ? 'Before' : 'After';
  if (value === undefined) {
    return (
      <span className="diff-value diff-absent">
        <span className="sr-only">{label}: </span>
        {side === 'before' ? 'not set (added)' : 'not set (removed)'}
      </span>
    );
  }
  return (
    <code className={`diff-value diff-${side}`}>
      <span className="sr-only">{label}: </span>
      {formatJsonValue(value)}
    </code>
  );
}
