import { readFileSync } from 'node:fs';
import t from 'tap';
import { ProcessMetrics } from '../../lib/metrics/process-metrics.js';

/**
 * The example Grafana dashboard and the alert rules in deploy/ ask only for series the
 * processes export: a renamed metric would otherwise leave an empty panel or an alert that can
 * never fire, silently.
 */
const metrics = new ProcessMetrics();
metrics.serveAs('test');
const exported = new Set<string>();
for (const metric of await metrics.registry.getMetricsAsJSON()) {
  exported.add(metric.name);
  if (String(metric.type) === 'histogram')
    for (const suffix of ['_bucket', '_count', '_sum']) exported.add(metric.name + suffix);
}

const named = (text: string) => [...new Set(text.match(/\bmailroom_[a-z0-9_]+/g) ?? [])];

t.test('the Grafana dashboard: valid JSON, every panel asks for exported series', async (t) => {
  const dashboard = JSON.parse(readFileSync('deploy/grafana-dashboard.json', 'utf8')) as {
    panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
  };
  t.ok(dashboard.panels.length >= 10, 'panels for queue, deliveries, replies, API, webhooks, inbound, DNS, pool');
  for (const panel of dashboard.panels) {
    const names = panel.targets.flatMap((target) => named(target.expr));
    t.ok(names.length > 0, `${panel.title}: asks for a mailroom series`);
    t.same(
      names.filter((name) => !exported.has(name)),
      [],
      `${panel.title}: every series exists`,
    );
  }
});

t.test('the alert rules: every expression asks for exported series', async (t) => {
  const rules = readFileSync('deploy/prometheus-alerts.yml', 'utf8');
  const alerts = [...rules.matchAll(/^\s+- alert: (\w+)$/gm)].map((match) => match[1]);
  t.ok(alerts.length >= 8, `${alerts.length} alerts`);
  for (const name of ['MailroomQueueOldestDue', 'MailroomBounceRateHigh', 'MailroomBlocklisted'])
    t.ok(alerts.includes(name), `${name} (the issue's three)`);
  const names = named(rules);
  t.same(
    names.filter((name) => !exported.has(name)),
    [],
    'every series exists',
  );
});
