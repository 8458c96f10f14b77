import type { Metadata } from 'next';
import Link from 'next/link';
import { ErrorPanel } from '@/components/error-panel';
import { EmptyState } from '@/components/list-page';
import { PageHeading } from '@/components/page-heading';
import { CursorPagination } from '@/components/pagination';
import { RuleSetCompareForm } from '@/components/rule-set-compare';
import { RuleSetDiffPanel } from '@/components/rule-set-diff';
import { RestorePanel, RuleSetRestoreProvider } from '@/components/rule-set-restore';
import { RuleSetsTable } from '@/components/rule-sets-table';
import { diffRuleSets, getRuleSet, listRuleSets, previewRestore } from '@/lib/api';
import type { RestorePreview, RuleSetChange } from '@/lib/api-answers';
import { formatRelativeTime, formatTimestamp } from '@/lib/format';
import { parseSelection, parseTrail, RULE_SETS_PATH, ruleSetsHref, type RuleSetSelection } from '@/lib/rule-sets';
import { loadWithSession, type Loaded } from '@/lib/session';

export const metadata: Metadata = { title: 'Rule sets' };

const PAGE_SIZE = 20;

interface RuleSetsPageProps {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}

export default async function RuleSetsPage({ searchParams }: RuleSetsPageProps) {
  const params = await searchParams;
  const trail = parseTrail(params);
  const selection = parseSelection(params);
  const [page, diff, restore] = await Promise.all([
    loadWithSession((token) => listRuleSets(token, trail.at(-1), PAGE_SIZE)),
    loadDiff(selection),
    selection.kind === 'restore' ? loadWithSession((token) => previewRestore(token, selection.version)) : undefined,
  ]);
  const closeHref = ruleSetsHref(trail);
  const pair =
    selection.kind === 'compare'
      ? selection
      : selection.kind === 'version'
        ? { from: selection.version > 1 ? selection.version - 1 : undefined, to: selection.version }
        : undefined;

  return (
    <>
      <PageHeading
        title="Rule sets"
        description="Every version of the rules that changed what is enforced, newest first. See what each one changed, compare two, or restore an older one (you see what it undoes before anything is sent)."
      >
        <RuleSetCompareForm trail={trail} from={pair?.from} to={pair?.to} />
      </PageHeading>
      {selection.kind === 'invalid' && (
        <p className="form-alert" role="alert" data-testid="rule-set-selection-error">
          {selection.message}
        </p>
      )}
      {diff &&
        (diff.ok ? (
          <RuleSetDiffPanel {...diff.data} closeHref={closeHref} />
        ) : (
          <ErrorPanel problem={diff.problem} action={<CloseLink href={closeHref} />} />
        ))}
      <RuleSetRestoreProvider>
        {restore && selection.kind === 'restore' && (restore.ok ? (
          <RestorePanel version={selection.version} current={restore.data.current} undoes={undoneLines(restore.data)} trail={trail} />
        ) : (
          <ErrorPanel problem={restore.problem} action={<CloseLink href={closeHref} />} />
        ))}
        {!page.ok ? (
          <ErrorPanel problem={page.problem} />
        ) : page.data.items.length === 0 && trail.length === 0 ? (
          <EmptyState testId="rule-sets-empty">
            No rule set has been published yet. Every change of a <Link href="/plans">plan</Link>, a tenant or a policy publishes one.
          </EmptyState>
        ) : (
          <>
            <RuleSetsTable
              versions={page.data.items}
              // Newest first: only the first page can hold the version in force.
              current={trail.length === 0 ? page.data.items[0]?.version : undefined}
              selected={selection.kind === 'version' || selection.kind === 'restore' ? selection.version : undefined}
              trail={trail}
            />
            <CursorPagination
              basePath={RULE_SETS_PATH}
              param="before"
              trail={trail}
              nextCursor={page.data.nextBefore === null ? null : String(page.data.nextBefore)}
              shown={page.data.items.length}
            />
          </>
        )}
      </RuleSetRestoreProvider>
    </>
  );
}

function CloseLink({ href }: { href: string }) {
  return (
    <Link href={href} className="btn btn-secondary" data-testid="rule-set-diff-close">
      Close
    </Link>
  );
}

const undoneLines = (preview: RestorePreview) => preview.undoes.map((change) => change.text);

interface DiffView {
  title: string;
  description: string;
  changes: RuleSetChange[];
}

function loadDiff(selection: RuleSetSelection): Promise<Loaded<DiffView>> | undefined {
  switch (selection.kind) {
    case 'version':
      return loadWithSession(async (token) => {
        const { version, createdAt, author, changes } = await getRuleSet(token, selection.version);
        const against = version > 1 ? `v${version - 1}` : 'an empty rule set';
        const published = `${formatRelativeTime(createdAt)} (${formatTimestamp(createdAt)})`;
        return { title: `Changes in v${version}`, description: `Against ${against} · published ${published} by ${author}`, changes };
      });
    case 'compare':
      return loadWithSession(async (token) => {
        const { from, to, changes } = await diffRuleSets(token, selection.from, selection.to);
        return { title: `v${from} → v${to}`, description: `What changes going from v${from} to v${to}`, changes };
      });
    default:
      return undefined;
  }
}
