import Link from 'next/link';
import { namedLabel, type NamedOption } from './named-select';
import './filter-form.css';

/** A select of the filter's options, with "any"; or (`search`) a text box for part of a name. */
export type Filter =
  | {
      /** The query parameter it sets. */
      name: string;
      label: string;
      options: { value: string; label: string }[];
    }
  | { name: string; label: string; search: { placeholder: string } };

/** Plans or tenants as a filter's options: each by its name and slug. */
export function namedOptions(options: readonly NamedOption[]): { value: string; label: string }[] {
  return options.map((option) => ({ value: option.id, label: namedLabel(option) }));
}

/** A filter by one of some plans or tenants (`tenantId`, `plan`…). */
export function namedFilter(name: string, label: string, options: readonly NamedOption[]): Filter {
  return { name, label, options: namedOptions(options) };
}

/** A filter's select: "any" (no value) first, then its options; its id is its test id. */
export function AnySelect({ id, name, defaultValue, options }: { id: string; name: string; defaultValue: string; options: readonly { value: string; label: string }[] }) {
  return (
    <select id={id} name={name} className="input" defaultValue={defaultValue} data-testid={id}>
      <option value="">any</option>
      {options.map((option) => (
        <option key={option.value} value={option.value}>
          {option.label}
        </option>
      ))}
    </select>
  );
}

interface FilterFormProps {
  /** The page the form filters. */
  path: string;
  label: string;
  /** Test ids: `<prefix>-filters`, `<prefix>-filter-<name>`, `<prefix>-filter-submit`. */
  testPrefix: string;
  filters: Filter[];
  params: Record<string, string | string[] | undefined>;
}

/**
 * A plain GET form of selects, each with "any", and search boxes: the filters live in the URL, so a filtered list
 * can be bookmarked and works without script. Filtering starts again from the first page.
 */
export function FilterForm({ path, label, testPrefix, filters, params }: FilterFormProps) {
  const value = (name: string) => {
    const v = params[name];
    return (Array.isArray(v) ? v[0] : v) ?? '';
  };
  // Keyed by the filters it shows: after "Clear" (a link, so the page is not reloaded) its selects show "any" again.
  const shown = filters.map((filter) => value(filter.name)).join('\u0000');
  return (
    <form key={shown} method="get" action={path} role="search" className="card form-body filter-form" aria-label={label} data-testid={`${testPrefix}-filters`}>
      <div className="form-row">
        {filters.map((filter) => {
          const id = `${testPrefix}-filter-${filter.name}`;
          return (
            <div key={filter.name} className={`field field-compact${'search' in filter ? ' field-search' : ''}`}>
              <label htmlFor={id}>{filter.label}</label>
              {'search' in filter ? (
                <input
                  id={id}
                  name={filter.name}
                  type="search"
                  className="input"
                  maxLength={100}
                  autoComplete="off"
                  spellCheck={false}
                  placeholder={filter.search.placeholder}
                  defaultValue={value(filter.name)}
                  data-testid={id}
                />
              ) : (
                <AnySelect id={id} name={filter.name} defaultValue={value(filter.name)} options={filter.options} />
              )}
            </div>
          );
        })}
        <div className="form-row-buttons">
          <button type="submit" className="btn btn-secondary" data-testid={`${testPrefix}-filter-submit`}>
            Filter
          </button>
          <Link href={path} className="btn btn-secondary" data-testid={`${testPrefix}-filter-clear`}>
            Clear
          </Link>
        </div>
      </div>
    </form>
  );
}
