import { Button } from '../../ui/button';
import { SelectField, TextField } from '../../ui/field';

/**
 * A condition step's rule tree (core/automations/condition-rules.ts): a rule
 * `{ type: 'rule', field, operator, value }` or a group `{ type: 'and' | 'or' | 'not', rules }`,
 * three levels deep at most, 20 rules at most (the segment grammar's bounds, which the API checks
 * and reports on the step). Every control is a labelled native one, so it works from the keyboard.
 */
export type RuleNode = { type: 'rule'; field?: string; operator?: string; value?: unknown } | GroupNode;
type GroupNode = { type: 'and' | 'or' | 'not'; rules: RuleNode[] };

const OPERATORS = ['eq', 'neq', 'contains', 'in', 'gt', 'gte', 'lt', 'lte', 'exists', 'is_empty'];
const GROUP_WORDS = { and: 'all of these', or: 'any of these', not: 'none of these' } as const;
const MAX_DEPTH = 3;

const isGroup = (node: RuleNode): node is GroupNode => node.type !== 'rule';
const emptyRule = (): RuleNode => ({ type: 'rule' });

/** The whole condition: "one rule" or a group, switchable without losing what was typed. */
export function ConditionRuleEditor({ value, onChange }: { value: unknown; onChange: (node: RuleNode) => void }) {
  const node = asNode(value);
  const shape = isGroup(node) ? node.type : 'rule';
  const reshape = (next: string) => {
    if (next === shape) return;
    if (next === 'rule') onChange(isGroup(node) ? (node.rules.find((r) => !isGroup(r)) ?? emptyRule()) : node);
    else onChange({ type: next as GroupNode['type'], rules: isGroup(node) ? node.rules : [node] });
  };
  return (
    <div className="rule-tree">
      <SelectField
        label="The contact must match"
        value={shape}
        onChange={(e) => reshape(e.target.value)}
        options={[
          { value: 'rule', label: 'one rule' },
          { value: 'and', label: GROUP_WORDS.and },
          { value: 'or', label: GROUP_WORDS.or },
          { value: 'not', label: GROUP_WORDS.not },
        ]}
      />
      {isGroup(node) ? (
        <GroupEditor group={node} depth={1} path="Rule" onChange={onChange} />
      ) : (
        <RuleEditor rule={node} path="" onChange={onChange} />
      )}
    </div>
  );
}

function GroupEditor({
  group,
  depth,
  path,
  onChange,
}: {
  group: GroupNode;
  depth: number;
  path: string;
  onChange: (node: GroupNode) => void;
}) {
  const setChild = (index: number, child: RuleNode) =>
    onChange({ ...group, rules: group.rules.map((r, i) => (i === index ? child : r)) });
  const remove = (index: number) => onChange({ ...group, rules: group.rules.filter((_, i) => i !== index) });
  return (
    <div className="rule-group">
      {group.rules.map((child, index) => {
        const label = `${path} ${index + 1}`;
        return (
          <fieldset key={index} className="rule-item">
            <legend>{label}</legend>
            {isGroup(child) ? (
              <>
                <SelectField
                  label={`${label}: match`}
                  value={child.type}
                  onChange={(e) => setChild(index, { ...child, type: e.target.value as GroupNode['type'] })}
                  options={Object.entries(GROUP_WORDS).map(([value, words]) => ({ value, label: words }))}
                />
                <GroupEditor group={child} depth={depth + 1} path={label} onChange={(g) => setChild(index, g)} />
              </>
            ) : (
              <RuleEditor rule={child} path={label} onChange={(r) => setChild(index, r)} />
            )}
            <Button className="btn-small" onClick={() => remove(index)} aria-label={`Remove ${label.toLowerCase()}`}>
              Remove
            </Button>
          </fieldset>
        );
      })}
      <div className="form-actions">
        <Button className="btn-small" onClick={() => onChange({ ...group, rules: [...group.rules, emptyRule()] })}>
          Add rule{depth > 1 ? ` to ${path.toLowerCase()}` : ''}
        </Button>
        {depth < MAX_DEPTH ? (
          <Button
            className="btn-small"
            onClick={() => onChange({ ...group, rules: [...group.rules, { type: 'and', rules: [emptyRule()] }] })}
          >
            Add group{depth > 1 ? ` to ${path.toLowerCase()}` : ''}
          </Button>
        ) : null}
      </div>
    </div>
  );
}

function RuleEditor({
  rule,
  path,
  onChange,
}: {
  rule: Extract<RuleNode, { type: 'rule' }>;
  path: string;
  onChange: (rule: RuleNode) => void;
}) {
  const set = (name: 'field' | 'operator' | 'value', value: unknown) => {
    const next: Record<string, unknown> = { ...rule, [name]: value };
    if (value === '' || value === undefined) delete next[name];
    onChange(next as RuleNode);
  };
  const noValue = rule.operator === 'exists' || rule.operator === 'is_empty';
  // The one rule of a condition is labelled plainly; a rule in a group is named by its place.
  const label = (what: string) => (path ? `${path}: ${what.toLowerCase()}` : what);
  return (
    <div className="field-grid">
      <TextField
        label={label('Contact field')}
        value={rule.field ?? ''}
        placeholder="first_name"
        hint="email, first_name, last_name, unsubscribed, created_at or properties.<key>"
        onChange={(e) => set('field', e.target.value.trim())}
      />
      <SelectField
        label={label('Operator')}
        value={rule.operator ?? ''}
        onChange={(e) => set('operator', e.target.value)}
        options={[{ value: '', label: 'Choose…' }, ...OPERATORS.map((op) => ({ value: op, label: op }))]}
      />
      {noValue ? null : (
        <TextField
          label={label('Value')}
          value={rule.value === undefined ? '' : String(rule.value)}
          onChange={(e) => set('value', e.target.value)}
        />
      )}
    </div>
  );
}

/** The stored config as a node: an empty config starts as one rule. */
function asNode(value: unknown): RuleNode {
  if (typeof value !== 'object' || value === null) return emptyRule();
  const node = value as { type?: unknown; rules?: unknown };
  if ((node.type === 'and' || node.type === 'or' || node.type === 'not') && Array.isArray(node.rules))
    return { type: node.type, rules: (node.rules as unknown[]).map(asNode) };
  return { ...(value as object), type: 'rule' } as RuleNode;
}
