import type { ControlProps } from './form-field';

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

/** A select of plans or tenants, by name and slug; posts the chosen one's id. */
export function NamedSelect({ options, empty, ...props }: NamedSelectProps) {
  return (
    <select {...props} className="input">
      {options.length === 0 && empty && <option value="">{empty}</option>}
      {options.map((option) => (
        <option key={option.id} value={option.id}>
          {option.name} ({option.slug})
        </option>
      ))}
    </select>
  );
}
