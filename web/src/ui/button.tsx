import { useId, type ButtonHTMLAttributes, type ReactNode } from 'react';

type Variant = 'primary' | 'secondary' | 'danger' | 'ghost';

export type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & {
  variant?: Variant;
  busy?: boolean;
  /**
   * Why the action is not available to this person (a member, not an admin): the button is
   * disabled and the reason is shown beside it and read by screen readers, never a raw 403.
   */
  disabledReason?: string | null;
  children: ReactNode;
};

export function Button({ variant = 'secondary', busy, disabledReason, children, className, ...rest }: ButtonProps) {
  const reasonId = useId();
  const disabled = rest.disabled || busy || Boolean(disabledReason);
  const button = (
    <button
      type="button"
      {...rest}
      className={`btn btn-${variant}${className ? ` ${className}` : ''}`}
      disabled={disabled}
      aria-busy={busy || undefined}
      aria-describedby={disabledReason ? reasonId : rest['aria-describedby']}
    >
      {busy ? <span className="spinner" aria-hidden="true" /> : null}
      {children}
    </button>
  );
  if (!disabledReason) return button;
  return (
    <span className="btn-with-reason">
      {button}
      <span id={reasonId} className="disabled-reason">
        {disabledReason}
      </span>
    </span>
  );
}
