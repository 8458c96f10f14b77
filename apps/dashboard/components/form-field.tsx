import { useId, type InputHTMLAttributes, type ReactNode } from 'react';
import { fieldError, submittedValue, type FormState } from '@/lib/form-state';
import { FieldError } from './form-messages';

/** What a field's control gets: its name, what it showed before, and the links to its label and error. */
export interface ControlProps {
  id: string;
  name: string;
  defaultValue: string;
  'aria-invalid'?: true;
  'aria-describedby'?: string;
  'data-testid': string;
}

interface FieldProps {
  label: ReactNode;
  /** Marks the label "(optional)": the form goes without it. */
  optional?: boolean;
  name: string;
  state: FormState;
  /** The API's name for what this field sets, when it differs from `name` (a window is posted as two fields). */
  errorField?: string;
  /** The value before any attempt; after a failure the field shows what was posted instead. */
  fallback?: string;
  testId: string;
  className?: string;
  /** The control, when it is not a plain text input (a select, an input with a unit). */
  control?: (props: ControlProps) => ReactNode;
  input?: InputHTMLAttributes<HTMLInputElement>;
}

/** A labelled control with its error under it, as every mutation form lays them out. */
export function Field({ label, optional = false, name, state, errorField = name, fallback = '', testId, className, control, input }: FieldProps) {
  const id = useId();
  const error = fieldError(state, errorField);
  const errorId = `${id}-error`;
  const props: ControlProps = {
    id,
    name,
    defaultValue: submittedValue(state, name, fallback),
    ...(error ? { 'aria-invalid': true, 'aria-describedby': errorId } : {}),
    'data-testid': testId,
  };
  return (
    <div className={`field field-compact${className ? ` ${className}` : ''}`}>
      <label htmlFor={id}>
        {label}
        {optional && (
          <>
            {' '}
            <span className="muted">(optional)</span>
          </>
        )}
      </label>
      {control ? control(props) : <input className="input" type="text" {...input} {...props} />}
      <FieldError id={errorId} message={error} />
    </div>
  );
}
