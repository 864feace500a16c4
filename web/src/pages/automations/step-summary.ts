import type { Step } from './automation-types';

const text = (value: unknown) => (typeof value === 'string' && value ? value : undefined);

/** One line saying what a step does, drawn on its node ("wait 2 days", "template welcome"). */
/** A condition group in words, as the rule editor says it. */
const GROUP_WORDS: Record<string, string> = { and: 'all of', or: 'any of', not: 'none of' };

export function stepSummary(step: Step, templateNames: Map<string, string> = new Map()): string {
  const c = step.config;
  switch (step.type) {
    case 'trigger':
      return text(c.event_name) ? `on ${c.event_name as string}` : 'no event chosen';
    case 'delay':
      return text(c.duration)
        ? `wait ${c.duration as string}`
        : text(c.until)
          ? `until ${c.until as string}`
          : 'no duration';
    case 'condition': {
      if (c.type === 'rule')
        return `${String(c.field ?? '?')} ${String(c.operator ?? '?')} ${c.value === undefined ? '' : JSON.stringify(c.value)}`.trim();
      if (Array.isArray(c.rules))
        return `${GROUP_WORDS[String(c.type)] ?? String(c.type)} ${c.rules.length} rule${c.rules.length === 1 ? '' : 's'}`;
      return 'no rule';
    }
    case 'send_email': {
      const template = c.template as { id?: unknown } | undefined;
      if (!text(template?.id)) return 'no template';
      const id = String(template!.id);
      return `template ${templateNames.get(id) ?? id}`;
    }
    case 'contact_update':
      return Object.keys(c).length ? `set ${Object.keys(c).join(', ')}` : 'nothing to set';
    case 'add_to_segment':
      return text(c.segment_id) ? `segment ${c.segment_id as string}` : 'no segment';
    case 'topic_update':
      return text(c.topic_id) ? `${String(c.subscription ?? '?')} ${c.topic_id as string}` : 'no topic';
    default:
      return '';
  }
}
