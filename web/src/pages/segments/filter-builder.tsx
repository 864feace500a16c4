import { createContext, useContext, useEffect, useRef } from 'react';
import { Button } from '../../ui/button';
import { SelectField, TextField } from '../../ui/field';
import {
  countConditions,
  fieldOptions,
  isYesNo,
  MAX_CONDITIONS,
  MAX_DEPTH,
  memberLabel,
  newCondition,
  newGroup,
  operatorLabel,
  operatorsFor,
  TOPIC_FIELD,
  updateNode,
  valueType,
  withField,
  type FieldNode,
  type FilterNode,
  type GroupNode,
  type TopicNode,
} from './filter-model';
import type { PropertyDef, TopicDef } from './segment-types';

type Ctx = {
  root: GroupNode;
  properties: PropertyDef[];
  topics: TopicDef[];
  change: (next: GroupNode, focus?: string) => void;
  /** The node whose first control takes focus once drawn (after "Add"), so the keyboard follows. */
  focus: string | null;
};
const BuilderContext = createContext<Ctx | null>(null);
const useBuilder = () => useContext(BuilderContext)!;

const MODES = [
  { value: 'all', label: 'all of these' },
  { value: 'any', label: 'any of these' },
  { value: 'not', label: 'none of these' },
];

/**
 * The filter builder: nested fieldsets of native controls (selects, inputs, buttons), so it is
 * used with Tab, arrow keys, Enter and Space alone, and every control is labelled. "Add" moves
 * focus into the new condition; "Remove" moves it to the group's "Add condition".
 */
export function FilterBuilder({
  root,
  onChange,
  properties,
  topics,
  focus,
}: {
  root: GroupNode;
  onChange: (next: GroupNode, focus?: string) => void;
  properties: PropertyDef[];
  topics: TopicDef[];
  focus: string | null;
}) {
  return (
    <BuilderContext.Provider value={{ root, properties, topics, change: onChange, focus }}>
      <GroupEditor group={root} label="Conditions" depth={1} />
    </BuilderContext.Provider>
  );
}

function useFocusWhen(id: string) {
  const { focus } = useBuilder();
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (focus === id) ref.current?.querySelector<HTMLElement>('select, input, button')?.focus();
  }, [focus, id]);
  return ref;
}

function GroupEditor({ group, label, depth }: { group: GroupNode; label: string; depth: number }) {
  const { root, change } = useBuilder();
  const ref = useFocusWhen(group.id);
  const addRef = useFocusWhen(`add:${group.id}`);
  const full = countConditions(root) >= MAX_CONDITIONS;
  const add = (node: FilterNode) =>
    change(
      updateNode(root, group.id, (g) => ({ ...(g as GroupNode), members: [...(g as GroupNode).members, node] })),
      node.id,
    );
  const isRoot = group.id === root.id;
  const where = isRoot ? '' : ` to ${label.toLowerCase()}`;
  return (
    <fieldset className={`filter-group filter-depth-${depth}`}>
      <legend>{label}</legend>
      <div className="row" ref={ref}>
        <SelectField
          label={isRoot ? 'Contacts matching' : `${label}: matching`}
          value={group.mode}
          options={MODES}
          onChange={(e) =>
            change(
              updateNode(root, group.id, (g) => ({ ...(g as GroupNode), mode: e.target.value as GroupNode['mode'] })),
            )
          }
        />
        {isRoot ? null : (
          <Button
            aria-label={`Remove ${label.toLowerCase()}`}
            onClick={() =>
              change(
                updateNode(root, group.id, () => null),
                parentOf(root, group.id),
              )
            }
          >
            Remove group
          </Button>
        )}
      </div>
      <ol className="filter-members">
        {group.members.map((member, index) => (
          <li key={member.id}>
            {member.kind === 'group' ? (
              <GroupEditor group={member} label={memberLabel(label, member, index)} depth={depth + 1} />
            ) : (
              <ConditionEditor node={member} label={memberLabel(label, member, index)} parent={group.id} />
            )}
          </li>
        ))}
      </ol>
      <div className="row" ref={addRef}>
        <Button
          aria-label={`Add condition${where}`}
          disabledReason={full ? `At most ${MAX_CONDITIONS} conditions` : undefined}
          onClick={() => add(newCondition())}
        >
          Add condition
        </Button>
        {depth < MAX_DEPTH ? (
          <Button
            aria-label={`Add group${where}`}
            disabled={full}
            onClick={() => add(newGroup(group.mode === 'all' ? 'any' : 'all'))}
          >
            Add group
          </Button>
        ) : null}
      </div>
    </fieldset>
  );
}

/** The id of the group holding `id` (focus goes there when `id` is removed). */
function parentOf(root: GroupNode, id: string): string | undefined {
  for (const member of root.members) {
    if (member.id === id) return `add:${root.id}`;
    if (member.kind === 'group') {
      const found = parentOf(member, id);
      if (found) return found;
    }
  }
  return undefined;
}

function ConditionEditor({ node, label, parent }: { node: FieldNode | TopicNode; label: string; parent: string }) {
  const { root, change, properties, topics } = useBuilder();
  const ref = useFocusWhen(node.id);
  const set = (next: FieldNode | TopicNode) => change(updateNode(root, node.id, () => next));
  const field = node.kind === 'topic' ? TOPIC_FIELD : node.field;
  return (
    <fieldset className="filter-condition">
      <legend>{label}</legend>
      <div className="row" ref={ref}>
        <SelectField
          label="Field"
          value={field}
          options={fieldOptions(properties, topics)}
          onChange={(e) => set(withField(node, e.target.value, properties, topics))}
        />
        {node.kind === 'topic' ? <TopicControls node={node} set={set} /> : <FieldControls node={node} set={set} />}
        <Button
          aria-label={`Remove ${label.toLowerCase()}`}
          onClick={() =>
            change(
              updateNode(root, node.id, () => null),
              `add:${parent}`,
            )
          }
        >
          Remove
        </Button>
      </div>
    </fieldset>
  );
}

function TopicControls({ node, set }: { node: TopicNode; set: (n: TopicNode) => void }) {
  const { topics } = useBuilder();
  return (
    <>
      <SelectField
        label="Topic"
        value={node.topic}
        options={topics.map((t) => ({ value: t.id, label: t.name }))}
        onChange={(e) => set({ ...node, topic: e.target.value })}
      />
      <SelectField
        label="Subscription"
        value={node.subscription}
        options={[
          { value: 'opt_in', label: 'opted in' },
          { value: 'opt_out', label: 'opted out' },
        ]}
        onChange={(e) => set({ ...node, subscription: e.target.value as TopicNode['subscription'] })}
      />
    </>
  );
}

function FieldControls({ node, set }: { node: FieldNode; set: (n: FieldNode) => void }) {
  const { properties } = useBuilder();
  const type = valueType(node.field, properties);
  return (
    <>
      <SelectField
        label="Operator"
        value={node.op}
        options={operatorsFor(type).map((op) => ({ value: op, label: operatorLabel(op, type) }))}
        onChange={(e) => {
          const op = e.target.value;
          // A yes/no value means nothing to a text operator and the other way round.
          const reset = isYesNo(type, op) !== isYesNo(type, node.op);
          set({ ...node, op, value: reset ? '' : node.value });
        }}
      />
      {isYesNo(type, node.op) ? (
        <SelectField
          label="Value"
          value={node.value}
          options={[
            { value: '', label: 'Choose…' },
            { value: 'true', label: 'yes' },
            { value: 'false', label: 'no' },
          ]}
          onChange={(e) => set({ ...node, value: e.target.value })}
        />
      ) : (
        <TextField
          label="Value"
          type={type === 'date' ? 'date' : 'text'}
          inputMode={type === 'number' ? 'decimal' : undefined}
          value={node.value}
          placeholder={node.op === 'in' ? 'a, b, c' : undefined}
          onChange={(e) => set({ ...node, value: e.target.value })}
        />
      )}
    </>
  );
}
