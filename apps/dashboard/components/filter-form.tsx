import Link from 'next/link';

export interface Filter {
  /** The query parameter it sets. */
  name: string;
  label: string;
  options: { value: string; label: string }[];
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
 * A plain GET form of selects, each with "any": the filters live in the URL, so a filtered list can be bookmarked
 * and works without script. Filtering starts again from the first page.
 */
export function FilterForm({ path, label, testPrefix, filters, params }: FilterFormProps) {
  const value = (name: string) => {
    const v = params[name];
    return (Array.isArray(v) ? v[0] : v) ?? '';
  };
  return (
    <form method="get" action={path} className="card form-body" aria-label={label} data-testid={`${testPrefix}-filters`}>
      <div className="form-row">
        {filters.map((filter) => (
          <div key={filter.name} className="field field-compact">
            <label htmlFor={`${testPrefix}-filter-${filter.name}`}>{filter.label}</label>
            <select
              id={`${testPrefix}-filter-${filter.name}`}
              name={filter.name}
              className="input"
              defaultValue={value(filter.name)}
              data-testid={`${testPrefix}-filter-${filter.name}`}
            >
              <option value="">any</option>
              {filter.options.map((option) => (
                <option key={option.value} value={option.value}>
                  {option.label}
                </option>
              ))}
            </select>
          </div>
        ))}
        <div className="form-row-buttons">
          <button type="submit" className="btn btn-secondary" data-testid={`${testPrefix}-filter-submit`}>
            Filter
          </button>
          <Link href={path} className="btn btn-secondary">
            Clear
          </Link>
        </div>
      </div>
    </form>
  );
}
