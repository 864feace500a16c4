import { operatorLabel } from './filter-model';
import type { TopicDef } from './segment-types';

const GROUP_WORDS: Record<string, string> = { all: 'All of', any: 'Any of', not: 'None of' };

/** A saved filter in words, as nested lists (a filter never changes after creation: read only). */
export function FilterSummary({ filter, topics }: { filter: Record<string, unknown>; topics: TopicDef[] }) {
  return <ul className="filter-summary">{describe(filter, topics)}</ul>;
}

function describe(node: Record<string, unknown>, topics: TopicDef[], key = 'root') {
  for (const mode of ['all', 'any', 'not'])
    if (Array.isArray(node[mode]))
      return (
        <li key={key}>
          {GROUP_WORDS[mode]}:
          <ul>{(node[mode] as Record<string, unknown>[]).map((m, i) => describe(m, topics, `${key}.${i}`))}</ul>
        </li>
      );
  if (typeof node.topic === 'string') {
    const name = topics.find((t) => t.id === node.topic)?.name ?? node.topic;
    return (
      <li key={key}>
        Topic <strong>{name}</strong>: {node.subscription === 'opt_out' ? 'opted out' : 'opted in'}
      </li>
    );
  }
  const value = Array.isArray(node.value) ? node.value.join(', ') : String(node.value);
  return (
    <li key={key}>
      <code>{String(node.field)}</code> {operatorLabel(String(node.op), node.field === 'created_at' ? 'date' : 'text')}{' '}
      <strong>{node.op === 'exists' || node.field === 'unsubscribed' ? (node.value ? 'yes' : 'no') : value}</strong>
    </li>
  );
}
