import { useState, type FormEvent } from 'react';
import { useSearchParam } from '../../router';
import { Button } from '../../ui/button';
import { SelectField, TextField } from '../../ui/field';
import { ACTOR_TYPES, KNOWN_ACTIONS, RESOURCE_TYPES } from './audit-types';

/**
 * The URL parameters the audit log filters on, named as GET /audit-logs takes them (the dates
 * are whole UTC days, which the API accepts as they are). `team_id` on the operator's page only.
 */
const NAMES = ['action', 'actor_type', 'resource_type', 'start_date', 'end_date', 'team_id'] as const;
type Name = (typeof NAMES)[number];

export function useAuditFilters() {
  const [action, setAction] = useSearchParam('action');
  const [actorType, setActorType] = useSearchParam('actor_type');
  const [resourceType, setResourceType] = useSearchParam('resource_type');
  const [startDate, setStartDate] = useSearchParam('start_date');
  const [endDate, setEndDate] = useSearchParam('end_date');
  const [teamId, setTeamId] = useSearchParam('team_id');
  const values: Record<Name, string> = {
    action,
    actor_type: actorType,
    resource_type: resourceType,
    start_date: startDate,
    end_date: endDate,
    team_id: teamId,
  };
  const set: Record<Name, (value: string | null) => void> = {
    action: setAction,
    actor_type: setActorType,
    resource_type: setResourceType,
    start_date: setStartDate,
    end_date: setEndDate,
    team_id: setTeamId,
  };
  return { values, set };
}

/**
 * Actor type, resource type and the dates apply at once; the action (typed, with suggestions)
 * on Enter or "Filter". `teams`: the operator's team choice.
 */
export function AuditFilters({
  errors,
  teams,
}: {
  errors: Partial<Record<Name, string>>;
  teams?: { value: string; label: string }[];
}) {
  const { values, set } = useAuditFilters();
  const [action, setAction] = useState(values.action);
  const apply = (event: FormEvent) => {
    event.preventDefault();
    set.action(action.trim());
  };
  const any = NAMES.some((name) => values[name]);
  return (
    <form className="filters" onSubmit={apply} aria-label="Filter the audit log">
      {teams ? (
        <SelectField
          label="Team"
          value={values.team_id}
          onChange={(event) => set.team_id(event.target.value)}
          error={errors.team_id}
          options={[
            { value: '', label: 'Every team' },
            ...teams,
            // A team beyond the first page of names (from a team's link): still shown, by its id.
            ...(values.team_id && !teams.some((team) => team.value === values.team_id)
              ? [{ value: values.team_id, label: `Team ${values.team_id.slice(0, 8)}…` }]
              : []),
          ]}
        />
      ) : null}
      <TextField
        label="Action"
        name="action"
        placeholder="api_key.created"
        list="audit-actions"
        value={action}
        onChange={(event) => setAction(event.target.value)}
        error={errors.action}
      />
      <datalist id="audit-actions">
        {KNOWN_ACTIONS.map((name) => (
          <option key={name} value={name} />
        ))}
      </datalist>
      <SelectField
        label="Actor"
        value={values.actor_type}
        onChange={(event) => set.actor_type(event.target.value)}
        error={errors.actor_type}
        options={[{ value: '', label: 'Anyone' }, ...ACTOR_TYPES]}
      />
      <SelectField
        label="Resource"
        value={values.resource_type}
        onChange={(event) => set.resource_type(event.target.value)}
        error={errors.resource_type}
        options={[
          { value: '', label: 'Any' },
          ...[...new Set([...RESOURCE_TYPES, ...(values.resource_type ? [values.resource_type] : [])])].map(
            (value) => ({ value, label: value }),
          ),
        ]}
      />
      <TextField
        label="From (UTC)"
        name="start_date"
        type="date"
        value={values.start_date}
        onChange={(event) => set.start_date(event.target.value)}
        error={errors.start_date}
      />
      <TextField
        label="To (UTC)"
        name="end_date"
        type="date"
        value={values.end_date}
        onChange={(event) => set.end_date(event.target.value)}
        error={errors.end_date}
      />
      <Button type="submit">Filter</Button>
      {any ? (
        <Button
          variant="ghost"
          onClick={() => {
            setAction('');
            for (const name of NAMES) set[name](null);
          }}
        >
          Clear filters
        </Button>
      ) : null}
    </form>
  );
}
