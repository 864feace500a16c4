import { useId, useState } from 'react';
import { Button } from '../../ui/button';
import { ErrorMessage } from '../../ui/error-message';
import { placeholder, variablesOf } from './merge-variables';
import { useContactProperties } from './use-audience';

/**
 * The merge variables to insert at the caret of the subject or HTML (whichever was last
 * focused): the built-in keys and the team's contact properties with their fallback, and an
 * inline default typed once for the next insert.
 */
export function VariablesPanel({ onInsert, target }: { onInsert: (text: string) => void; target: string }) {
  const properties = useContactProperties();
  const [inlineDefault, setInlineDefault] = useState('');
  const defaultId = useId();
  const variables = variablesOf(properties.data?.data ?? []);
  return (
    <section className="broadcast-variables" aria-labelledby={`${defaultId}-title`}>
      <h3 id={`${defaultId}-title`}>Merge variables</h3>
      <p className="field-hint">
        Inserted into the {target} at the caret. A contact without a value gets the inline default, then the property’s
        fallback, then nothing.
      </p>
      <div className="field">
        <label htmlFor={defaultId}>Inline default for the next insert</label>
        <input id={defaultId} value={inlineDefault} onChange={(e) => setInlineDefault(e.target.value)} />
      </div>
      <ErrorMessage error={properties.error} />
      <ul className="broadcast-variable-list">
        {variables.map((v) => (
          <li key={v.key}>
            <Button
              className="btn-small"
              aria-label={`Insert ${v.key}`}
              onClick={() => onInsert(placeholder(v.key, inlineDefault))}
            >
              <code>{v.key}</code>
            </Button>
            <span className="muted">
              {v.description}
              {v.fallback !== null ? `; fallback “${v.fallback}”` : ''}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
