import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadApiConfig } from '../../config/config';
import { MetricsService } from './metrics.service';

// The alert rules and the Grafana dashboard shipped in docker/ name metrics by hand: a metric renamed here, or a typo
// there, would leave an alert that never fires and a panel that stays empty. promtool is not part of the suite (run
// `promtool check rules` and `promtool test rules docker/prometheus/alerts.test.yml` where it is installed); this
// parses the files and checks every metric they name against MetricsService's registry.
const DOCKER = join(__dirname, '..', '..', '..', '..', '..', 'docker');
const read = (...path: string[]) => readFileSync(join(DOCKER, ...path), 'utf8');

/** Series Prometheus makes itself, not the API. */
const PROMETHEUS_OWN = ['up'];
const PROMQL_WORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'inf', 'nan']);

/** The metric names a PromQL expression selects (functions, label names, strings and ranges left out). */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ');
  const names = [...bare.matchAll(/\b([A-Za-z_:][A-Za-z0-9_:]*)\b(?!\s*\()/g)].map((m) => m[1]!).filter((n) => !PROMQL_WORDS.has(n.toLowerCase()));
  return [...new Set(names)];
}

/** Every series name the API exposes: each metric's, and a histogram's _bucket, _sum and _count. */
function exposedNames(): Set<string> {
  const metrics = new MetricsService(loadApiConfig({}));
  const names = new Set<string>(PROMETHEUS_OWN);
  for (const metric of metrics.registry.getMetricsAsArray()) {
    const { name, type } = metric as unknown as { name: string; type: string };
    names.add(name);
    if (type === 'histogram' || type === 'summary') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`);
  }
  return names;
}

interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels: { severity: string };
  annotations: { summary: string; description: string };
}

interface Panel {
  type: string;
  title: string;
  datasource?: { type: string; uid: string };
  targets?: { expr: string; datasource: { uid: string } }[];
  panels?: Panel[];
}

describe('metricNames', () => {
  it('finds the metrics of an expression and nothing else', () => {
    expect(metricNames('sum by (tenant) (rate(a_total{result=~"denied|x"}[5m])) / sum(rate(a_total[5m])) > 0.2 and b > 1')).toEqual(['a_total', 'b']);
    expect(metricNames('histogram_quantile(0.99, sum by (le) (rate(c_bucket{job=~"$job"}[$__rate_interval])))')).toEqual(['c_bucket']);
    expect(metricNames('max by (job) (v) - min by (job) (v) > 0')).toEqual(['v']);
  });
});

describe('the monitoring files in docker/ name only metrics the API exposes', () => {
  const exposed = exposedNames();

  it('docker/prometheus/alerts.yml: well-formed alerting rules on existing metrics', () => {
    const file = parse(read('prometheus', 'alerts.yml')) as { groups: { name: string; rules: AlertRule[] }[] };
    const rules = file.groups.flatMap((g) => g.rules);
    expect(rules.length).toBeGreaterThanOrEqual(8);
    // The alerts this file exists for.
    expect(rules.map((r) => r.alert)).toEqual(
      expect.arrayContaining(['TollgateHighDenialShare', 'TollgateDegradedDecisions', 'TollgateRedisCircuitOpen', 'TollgateRuleSetRejected', 'TollgateRuleVersionSkew']),
    );
    for (const rule of rules) {
      expect(rule.alert, JSON.stringify(rule)).toMatch(/^Tollgate[A-Za-z]+$/);
      expect(['warning', 'critical']).toContain(rule.labels.severity);
      expect(rule.annotations.summary.length).toBeGreaterThan(10);
      expect(rule.annotations.description.length).toBeGreaterThan(10);
      if (rule.for !== undefined) expect(rule.for).toMatch(/^\d+[smh]$/);
      const names = metricNames(rule.expr);
      expect(names.length, rule.alert).toBeGreaterThan(0);
      for (const name of names) expect(exposed.has(name), `${rule.alert}: ${name}`).toBe(true);
    }
    expect(new Set(rules.map((r) => r.alert)).size).toBe(rules.length);
  });

  it('docker/prometheus/prometheus.yml: scrapes the API as the job the alerts name and loads alerts.yml', () => {
    const config = parse(read('prometheus', 'prometheus.yml')) as { rule_files: string[]; scrape_configs: { job_name: string; static_configs: { targets: string[] }[] }[] };
    expect(config.rule_files).toEqual(['alerts.yml']);
    expect(config.scrape_configs.map((s) => s.job_name)).toContain('tollgate-api');
    expect(read('prometheus', 'alerts.yml')).toContain('job="tollgate-api"');
  });

  it('docker/grafana/tollgate.json: an importable dashboard whose every query names existing metrics', () => {
    const dashboard = JSON.parse(read('grafana', 'tollgate.json')) as { uid: string; title: string; panels: Panel[]; templating: { list: { name: string; definition?: string }[] } };
    expect(dashboard).toMatchObject({ uid: 'tollgate', title: 'Tollgate' });
    expect(dashboard.templating.list.map((v) => v.name)).toEqual(['datasource', 'job', 'instance', 'tenant']);
    const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]).filter((p) => p.type !== 'row');
    expect(panels.length).toBeGreaterThanOrEqual(10);
    const shown = new Set<string>();
    for (const panel of panels) {
      expect(panel.datasource?.uid, panel.title).toBe('${datasource}');
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets ?? []) {
        expect(target.datasource.uid).toBe('${datasource}');
        for (const name of metricNames(target.expr)) {
          expect(exposed.has(name), `${panel.title}: ${name}`).toBe(true);
          shown.add(name);
        }
      }
    }
    for (const variable of dashboard.templating.list.filter((v) => v.definition)) {
      const metric = /^label_values\(([a-z_:][a-z0-9_:]*)/.exec(variable.definition!)?.[1];
      expect(metric && exposed.has(metric), variable.definition).toBe(true);
    }
    // Every metric Tollgate itself records has a panel.
    for (const name of ['tollgate_decisions_total', 'tollgate_decision_redis_seconds_bucket', 'tollgate_degraded_decisions_total', 'tollgate_redis_circuit_open', 'tollgate_late_replies_total', 'tollgate_rule_set_rejections_total', 'tollgate_rule_set_version']) {
      expect(shown, name).toContain(name);
    }
  });
});
