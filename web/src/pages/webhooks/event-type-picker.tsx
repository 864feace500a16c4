import { Checkbox } from '../../ui/field';
import { EVENT_GROUPS } from './webhook-types';

/**
 * The event types of an endpoint as checkbox groups (one fieldset each, with "all"/"none" for
 * the group), so a person picks "every sent-email event" in one go.
 */
export function EventTypePicker({
  value,
  onChange,
  error,
}: {
  value: string[];
  onChange: (types: string[]) => void;
  error?: string | null;
}) {
  const chosen = new Set(value);
  const set = (types: string[], on: boolean) => {
    const next = new Set(chosen);
    for (const type of types) {
      if (on) next.add(type);
      else next.delete(type);
    }
    // Kept in the order of the groups, so the saved list reads the same way the form does.
    onChange(EVENT_GROUPS.flatMap((group) => group.types).filter((type) => next.has(type)));
  };
  return (
    <div className={`event-picker${error ? ' field-invalid' : ''}`}>
      <div className="event-groups">
        {EVENT_GROUPS.map((group) => {
          const all = group.types.every((type) => chosen.has(type));
          return (
            <fieldset key={group.label} className="event-group">
              <legend>{group.label}</legend>
              {group.types.length > 1 ? (
                <button
                  type="button"
                  className="btn btn-ghost btn-small"
                  onClick={() => set(group.types, !all)}
                  aria-label={`${all ? 'Clear' : 'Select'} every ${group.label.toLowerCase()} event`}
                >
                  {all ? 'None' : 'All'}
                </button>
              ) : null}
              {group.types.map((type) => (
                <Checkbox
                  key={type}
                  label={<code>{type}</code>}
                  checked={chosen.has(type)}
                  onChange={(event) => set([type], event.target.checked)}
                />
              ))}
            </fieldset>
          );
        })}
      </div>
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
