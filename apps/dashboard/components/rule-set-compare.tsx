import Form from 'next/form';
import { RULE_SETS_PATH } from '@/lib/rule-sets';
import './rule-sets.css';

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
      <VersionInput name="from" lead="Compare" value={from} />
      <VersionInput name="to" lead="with" value={to} />
      <button type="submit" className="btn btn-secondary" data-testid="compare-submit">
        Compare
      </button>
    </Form>
  );
}

/** "Compare v[ ]" and "with v[ ]": the label reads "Compare version" and "with version" to a screen reader. */
function VersionInput({ name, lead, value }: { name: 'from' | 'to'; lead: string; value: number | undefined }) {
  const id = `compare-${name}`;
  return (
    <>
      <label htmlFor={id}>
        {lead} <span aria-hidden="true">v</span>
        <span className="sr-only">version</span>
      </label>
      <input id={id} name={name} type="number" inputMode="numeric" min={1} step={1} className="input" defaultValue={value} data-testid={id} />
    </>
  );
}
