import type { ControlProps } from './form-field';

export interface PlanOption {
  id: string;
  slug: string;
  name: string;
}

/** A select of every plan, by name and slug; posts the plan's id. */
export function PlanSelect({ plans, ...props }: ControlProps & { plans: PlanOption[] }) {
  return (
    <select {...props} className="input">
      {plans.map((plan) => (
        <option key={plan.id} value={plan.id}>
          {plan.name} ({plan.slug})
        </option>
      ))}
    </select>
  );
}
