interface ToggleButtonProps {
  expanded: boolean;
  onToggle: () => void;
  label: string;
  testId: string;
}

/** The button that opens (and closes) an inline form under what it edits: Edit, Rename, Override. */
export function ToggleButton({ expanded, onToggle, label, testId }: ToggleButtonProps) {
  return (
    <button type="button" className="btn btn-secondary btn-sm" aria-expanded={expanded} onClick={onToggle} data-testid={testId}>
      {label}
    </button>
  );
}
