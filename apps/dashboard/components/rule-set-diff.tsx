import Link from 'next/link';
import type { ReactNode } from 'react';
import type { RuleSetChange } from '@/lib/api-answers';
import { formatCount } from '@/lib/format';
import './rule-sets.css';

interface RuleSetDiffPanelProps {
  title: string;
  description: ReactNode;
  /** The API's lines, the very ones the history counts. */
  changes: RuleSetChange[];
  closeHref: string;
}

/** "3 changes", "1 change", "No change to enforcement". */
export function changeCount(count: number): string {
  return count === 0 ? 'No change to enforcement' : `${formatCount(count)} ${count === 1 ? 'change' : 'changes'}`;
}

/** The changes, one line each ("starter: minute 10 → 20"). */
export function ChangeList({ lines }: { lines: string[] }) {
  return (
    <ul className="diff-list">
      {lines.map((line, i) => (
        <li key={i} className="diff-sentence" data-testid="rule-set-change">
          {line}
        </li>
      ))}
    </ul>
  );
}

/** What differs between two rule sets: one line per change, counted as the history counts them. */
export function RuleSetDiffPanel({ title, description, changes, closeHref }: RuleSetDiffPanelProps) {
  return (
    <section className="card diff-panel" aria-labelledby="rule-set-diff-title" data-testid="rule-set-diff">
      <header className="plan-card-header">
        <div>
          <h2 id="rule-set-diff-title">{title}</h2>
          <p className="diff-description">{description}</p>
        </div>
        <span className="tenant-count" data-testid="rule-set-diff-count">
          {changeCount(changes.length)}
        </span>
        <Link href={closeHref} className="btn btn-secondary btn-sm" data-testid="rule-set-diff-close">
          Close
        </Link>
      </header>
      {changes.length === 0 ? (
        <p className="panel muted" data-testid="rule-set-diff-empty">
          Nothing enforced differs: both rule sets admit and deny the same requests.
        </p>
      ) : (
        <ChangeList lines={changes.map((change) => change.text)} />
      )}
    </section>
  );
}
