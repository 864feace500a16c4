import { useId, useMemo, type ReactNode } from 'react';
import { highlightHtml } from './highlight-html';

/**
 * A small HTML editor with syntax highlighting: a real <textarea> (labelled, the only thing
 * focusable, undo and selection as usual) whose text is transparent, laid exactly over a
 * highlighted copy of the same text. Both sit in one grid cell, so the highlighted copy sizes
 * the cell and the textarea follows: no scroll syncing, the frame around them scrolls. Tab is
 * not trapped: it moves on to the next control, as everywhere else (indent with spaces).
 */
export function CodeEditor({
  label,
  value,
  onChange,
  hint,
  error,
}: {
  label: ReactNode;
  value: string;
  onChange: (value: string) => void;
  hint?: ReactNode;
  error?: string | null;
}) {
  const id = useId();
  const tokens = useMemo(() => highlightHtml(value), [value]);
  const describedBy = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field${error ? ' field-invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      <div className="code-editor">
        <pre className="code-editor-highlight" aria-hidden="true">
          {tokens.map((token, index) =>
            token.kind === 'text' ? (
              token.text
            ) : (
              <span key={index} className={`tok-${token.kind}`}>
                {token.text}
              </span>
            ),
          )}
          {/* A final newline needs a character after it to take up its line. */}{' '}
        </pre>
        <textarea
          id={id}
          className="code-editor-input"
          value={value}
          onChange={(event) => onChange(event.target.value)}
          spellCheck={false}
          autoCapitalize="off"
          autoComplete="off"
          autoCorrect="off"
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy}
        />
      </div>
      {hint ? (
        <span className="field-hint" id={`${id}-hint`}>
          {hint}
        </span>
      ) : null}
      {error ? (
        <span className="field-error" id={`${id}-error`} role="alert">
          {error}
        </span>
      ) : null}
    </div>
  );
}
