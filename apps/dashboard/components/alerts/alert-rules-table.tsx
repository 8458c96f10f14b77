import type { AlertRule } from '@/lib/api-answers';
import { describeParams, scopeLabel } from '@/lib/alerts';
import { DataTable } from '../data-table';
import { AlertRuleRow } from './alert-rule-row';

/** Every alert rule by name, each with its Edit, Enable or Disable and Delete. */
export function AlertRulesTable({ rules, names }: { rules: readonly AlertRule[]; names: ReadonlyMap<string, string> }) {
  return (
    <DataTable testId="alert-rules-table" columns={['Name', 'Kind', 'Watches', 'When', 'Status']} actions>
      {rules.map((rule) => (
        <AlertRuleRow key={rule.id} rule={rule} scope={scopeLabel(rule, names)} condition={describeParams(rule)} />
      ))}
    </DataTable>
  );
}
