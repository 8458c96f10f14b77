import type { KeyCalls, KeyKind } from '@/lib/api-answers';
import { formatCount } from '@/lib/format';
import { KIND_LABELS, type KeyScope, type KeyStatus } from '@/lib/keys';
import './keys.css';

interface Moment {
  text: string;
  title: string | undefined;
}

/** A key as its row shows it, worked out on the server (times relative to the request, the status). */
export interface KeyRowView {
  id: string;
  kind: KeyKind;
  name: string;
  prefix: string;
  /** What the key may reach, in the operator's table; a tenant's own keys go without (and without their kind). */
  scope?: KeyScope;
  created: Moment;
  lastUsed: Moment;
  /** Its calls over the last 24 hours, from usage. */
  calls: KeyCalls;
  expires: Moment;
  status: KeyStatus;
}

/** A key's cells: name, kind, prefix (never the secret), scope, created, last used, calls, expiry and status. */
export function KeyCells({ row }: { row: KeyRowView }) {
  return (
    <>
      <td className="break">{row.name}</td>
      {row.scope && (
        <td>
          <span className={`badge badge-kind-${row.kind}`}>{KIND_LABELS[row.kind]}</span>
        </td>
      )}
      <td>
        <span className="mono" data-testid={`key-prefix-${row.id}`}>
          {row.prefix}…
        </span>
      </td>
      {row.scope && (
        <td>
          {'label' in row.scope ? (
            <span className="muted">{row.scope.label}</span>
          ) : (
            <span className="chip-list">
              {row.scope.slugs.map((slug) => (
                <span key={slug} className="chip">
                  {slug}
                </span>
              ))}
            </span>
          )}
        </td>
      )}
      <MomentCell moment={row.created} />
      <MomentCell moment={row.lastUsed} />
      <td className="muted" data-testid={`key-calls-${row.id}`} title={`${formatCount(row.calls.other)} peeks and refunds`}>
        {formatCount(row.calls.decisions)}
        {row.calls.denied > 0 && <span className="key-denied"> · {formatCount(row.calls.denied)} denied</span>}
      </td>
      <MomentCell moment={row.expires} />
      <td>
        <span className={`badge badge-${row.status}`} data-testid={`key-status-${row.id}`}>
          {row.status}
        </span>
      </td>
    </>
  );
}

function MomentCell({ moment }: { moment: Moment }) {
  return (
    <td className="muted" title={moment.title}>
      {moment.text}
    </td>
  );
}
