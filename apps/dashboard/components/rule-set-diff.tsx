import Link from 'next/link';
import type { ReactNode } from 'react';
import type { RuleSetChange } from '@/lib/api-answers';
import { formatCount, formatJsonValue } from '@/lib/format';

interface RuleSetDiffPanelProps {
  title: string;
  description: ReactNode;
  /** What changed, in sentences; null when a rule set could not be read as one (then `changes`, path by path). */
  sentences: string[] | null;
  changes: RuleSetChange[];
  closeHref: string;
}

/** What differs between two rule sets: one sentence per change ("starter: minute 10 → 20"). */
export function RuleSetDiffPanel({ title, description, sentences, changes, closeHref }: RuleSetDiffPanelProps) {
  const count = sentences?.length ?? changes.length;
  return (
    <section className="card diff-panel" aria-labelledby="rule-set-diff-title" data-testid="rule-set-diff">
      <header className="plan-card-header">
        <div>
          <h2 id="rule-set-diff-title">{title}</h2>
          <p className="diff-description">{description}</p>
        </div>
        <span className="tenant-count">{count === 0 ? 'No changes' : `${formatCount(count)} ${count === 1 ? 'change' : 'changes'}`}</span>
        <Link href={closeHref} className="btn btn-secondary btn-sm" data-testid="rule-set-diff-close">
          Close
        </Link>
      </header>
      {count === 0 ? (
        <p className="panel muted" data-testid="rule-set-diff-empty">
          No changes: both rule sets are the same.
        </p>
      ) : sentences ? (
        <ul className="diff-list">
          {sentences.map((sentence, i) => (
            <li key={i} className="diff-sentence" data-testid="rule-set-change">
              {sentence}
            </li>
          ))}
        </ul>
      ) : (
        <ul className="diff-list">
          {changes.map((change) => (
            <li key={change.path} className="diff-row" data-testid="rule-set-change">
              <code className="diff-path">{change.path || '(the whole rule set)'}</code>
              <div className="diff-values">
                <DiffValue side="before" path={change.path} value={change.before} />
                <span className="diff-arrow" aria-hidden="true">
                  →
                </span>
                <DiffValue side="after" path={change.path} value={change.after} />
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** A key's hash is not for reading: said, never shown (alone, or inside a key added or removed whole). */
const isHash = (path: string) => /(^|\.)hash$/.test(path);
function hideHashes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(hideHashes);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, key === 'hash' ? '(a key hash)' : hideHashes(item)]));
}

function DiffValue({ side, path, value }: { side: 'before' | 'after'; path: string; value: unknown }) {
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
      {isHash(path) ? '(a key hash)' : formatJsonValue(hideHashes(value))}
    </code>
  );
}
