import { useQuery } from '@tanstack/react-query';
import { api, type List } from '../../api/client';
import { SelectField, TextField } from '../../ui/field';
import type { Step } from './automation-types';
import { useTemplates } from './use-template-names';
import { ConditionRuleEditor } from './condition-rule-editor';

type Config = Record<string, unknown>;
type FormProps = { step: Step; onChange: (config: Config) => void };

/** Sets `name` to `value`, or leaves it out when empty: an absent setting is what the API names in its error. */
const withValue = (config: Config, name: string, value: unknown): Config => {
  const next = { ...config };
  if (value === '' || value === undefined) delete next[name];
  else next[name] = value;
  return next;
};
const str = (value: unknown) => (typeof value === 'string' ? value : '');

/** The settings of one step, by its type: the fields graph-validation.ts reads. */
export function StepConfigForm({ step, onChange }: FormProps) {
  switch (step.type) {
    case 'trigger':
      return <TriggerForm step={step} onChange={onChange} />;
    case 'delay':
      return <DelayForm step={step} onChange={onChange} />;
    case 'condition':
      return <ConditionForm step={step} onChange={onChange} />;
    case 'send_email':
      return <SendEmailForm step={step} onChange={onChange} />;
    case 'contact_update':
      return <ContactUpdateForm step={step} onChange={onChange} />;
    case 'add_to_segment':
      return (
        <TextField
          label="Segment id"
          value={str(step.config.segment_id)}
          onChange={(e) => onChange(withValue(step.config, 'segment_id', e.target.value.trim()))}
        />
      );
    case 'topic_update':
      return (
        <>
          <TextField
            label="Topic id"
            value={str(step.config.topic_id)}
            onChange={(e) => onChange(withValue(step.config, 'topic_id', e.target.value.trim()))}
          />
          <SelectField
            label="Subscription"
            value={str(step.config.subscription)}
            onChange={(e) => onChange(withValue(step.config, 'subscription', e.target.value))}
            options={[
              { value: '', label: 'Choose…' },
              { value: 'opt_in', label: 'Opt in' },
              { value: 'opt_out', label: 'Opt out' },
            ]}
          />
        </>
      );
    default:
      return <p className="muted">This step type has no settings here.</p>;
  }
}

function TriggerForm({ step, onChange }: FormProps) {
  const events = useQuery({
    queryKey: ['/events', 'automation-trigger'],
    queryFn: () => api.get<List<{ id: string; name: string }>>('/events', { query: { limit: 100 } }),
  });
  const listId = `trigger-events-${step.key}`;
  return (
    <>
      <TextField
        label="Event"
        list={listId}
        value={str(step.config.event_name)}
        placeholder="user.signed_up"
        hint="A custom event of the team, or a platform event such as svc:contact.created."
        onChange={(e) => onChange(withValue(step.config, 'event_name', e.target.value.trim()))}
      />
      <datalist id={listId}>
        {(events.data?.data ?? []).map((event) => (
          <option key={event.id} value={event.name} />
        ))}
        <option value="svc:contact.created" />
        <option value="svc:topic.subscribed" />
      </datalist>
    </>
  );
}

function DelayForm({ step, onChange }: FormProps) {
  return (
    <TextField
      label="Wait for"
      value={str(step.config.duration)}
      placeholder="2 days"
      hint='A phrase: "30 minutes", "2 hours", "3 days", "1 week" (at most 30 days).'
      onChange={(e) => onChange(withValue({ ...step.config, until: undefined }, 'duration', e.target.value))}
    />
  );
}

/** The rule tree over the contact: one rule, or all/any/none of rules and groups. */
function ConditionForm({ step, onChange }: FormProps) {
  return <ConditionRuleEditor value={step.config} onChange={(node) => onChange(node as Config)} />;
}

function SendEmailForm({ step, onChange }: FormProps) {
  const templates = useTemplates();
  const template = (step.config.template ?? {}) as { id?: string; variables?: Record<string, unknown> };
  return (
    <>
      <SelectField
        label="Template"
        value={template.id ?? ''}
        hint="A published template; its subject and sender unless set below."
        onChange={(e) =>
          onChange(
            withValue(
              step.config,
              'template',
              e.target.value
                ? { id: e.target.value, ...(template.variables ? { variables: template.variables } : {}) }
                : '',
            ),
          )
        }
        options={[
          { value: '', label: 'Choose a template…' },
          ...(templates.data?.data ?? []).map((t) => ({
            value: t.id,
            label: `${t.name}${t.status === 'published' ? '' : ' (draft)'}`,
          })),
        ]}
      />
      <TextField
        label="Subject (optional)"
        value={str(step.config.subject)}
        onChange={(e) => onChange(withValue(step.config, 'subject', e.target.value))}
      />
    </>
  );
}

function ContactUpdateForm({ step, onChange }: FormProps) {
  return (
    <>
      <TextField
        label="First name"
        value={str(step.config.first_name)}
        onChange={(e) => onChange(withValue(step.config, 'first_name', e.target.value))}
      />
      <TextField
        label="Last name"
        value={str(step.config.last_name)}
        onChange={(e) => onChange(withValue(step.config, 'last_name', e.target.value))}
      />
      <SelectField
        label="Unsubscribed"
        value={step.config.unsubscribed === undefined ? '' : String(step.config.unsubscribed)}
        onChange={(e) =>
          onChange(withValue(step.config, 'unsubscribed', e.target.value === '' ? '' : e.target.value === 'true'))
        }
        options={[
          { value: '', label: 'Leave as is' },
          { value: 'true', label: 'Unsubscribe' },
          { value: 'false', label: 'Resubscribe' },
        ]}
      />
    </>
  );
}
