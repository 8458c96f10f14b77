import type { FormState } from '@/lib/form-state';
import { Field, type ControlProps } from './form-field';

/** A plan or a tenant, as a select offers it. */
export interface NamedOption {
  id: string;
  slug: string;
  name: string;
}

interface NamedSelectProps extends ControlProps {
  options: NamedOption[];
  /** What the select says when there is nothing to choose (it then posts an empty value). */
  empty?: string;
}

/** Only what a select of plans or tenants needs of one, to travel to the browser. */
export function named({ id, slug, name }: NamedOption): NamedOption {
  return { id, slug, name };
}

/** How a plan or a tenant reads in a select or a list: its name, then its slug. */
export function namedLabel(option: NamedOption): string {
  return `${option.name} (${option.slug})`;
}

/** A select of plans or tenants, by name and slug; posts the chosen one's id. */
export function NamedSelect({ options, empty, ...props }: NamedSelectProps) {
  return (
    <select {...props} className="input">
      {options.length === 0 && empty && <option value="">{empty}</option>}
      {options.map((option) => (
        <option key={option.id} value={option.id}>
          {namedLabel(option)}
        </option>
      ))}
    </select>
  );
}

interface NamedFieldProps extends Pick<NamedSelectProps, 'options' | 'empty'> {
  label: string;
  name: string;
  state: FormState;
  /** The one chosen before any attempt: the first unless told. */
  fallback?: string;
  testId: string;
}

/** A form's choice of a plan or a tenant. */
export function NamedField({ options, empty, fallback = options[0]?.id, ...field }: NamedFieldProps) {
  return <Field {...field} fallback={fallback} control={(props) => <NamedSelect {...props} options={options} empty={empty} />} />;
}

interface ChoiceSelectProps<T extends string> extends ControlProps {
  choices: readonly T[];
  labels: Readonly<Record<T, string>>;
  /** Told of every choice: the fields that depend on it follow. */
  onChoose: (choice: T) => void;
}

/** A select of a fixed set of values (a key's kind, a user's role), by their labels. */
export function ChoiceSelect<T extends string>({ choices, labels, onChoose, ...props }: ChoiceSelectProps<T>) {
  return (
    <select
      {...props}
      className="input"
      onChange={(event) => {
        const choice = choices.find((value) => value === event.target.value);
        if (choice !== undefined) onChoose(choice);
      }}
    >
      {choices.map((value) => (
        <option key={value} value={value}>
          {labels[value]}
        </option>
      ))}
    </select>
  );
}
