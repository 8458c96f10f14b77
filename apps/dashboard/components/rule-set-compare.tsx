import Form from 'next/form';
import { RULE_SETS_PATH } from '@/lib/rule-sets';

interface RuleSetCompareFormProps {
  /** Kept in the URL so comparing does not leave the page of versions being looked at. */
  trail: string[];
  from?: number;
  to?: number;
}

/** "Compare vA with vB": a plain GET form, so the comparison is a link like any other selection. */
export function RuleSetCompareForm({ trail, from, to }: RuleSetCompareFormProps) {
  return (
    // Keyed on the defaults: a new selection shows its own pair instead of what was typed before.
    <Form key={`${from}-${to}`} action={RULE_SETS_PATH} className="compare-form" noValidate>
      {trail.map((cursor) => (
        <input key={cursor} type="hidden" name="before" value={cursor} />
      ))}
      <label htmlFor="compare-from">
        Compare <span aria-hidden="true">v</span>
        <span className="sr-only">version</span>
      </label>
      <input
        id="compare-from"
        name="from"
        type="number"
        inputMode="numeric"
        min={1}
        step={1}
        className="input"
        defaultValue={from}
        data-testid="compare-from"
      />
      <label htmlFor="compare-to">
        with <span aria-hidden="true">v</span>
        <span className="sr-only">version</span>
      </label>
      <input
        id="compare-to"
        name="to"
        type="number"
        inputMode="numeric"
        min={1}
        step={1}
        className="input"
        defaultValue={to}
        data-testid="compare-to"
      />
      <button type="submit" className="btn btn-secondary" data-testid="compare-submit">
        Compare
      </button>
    </Form>
  );
}
