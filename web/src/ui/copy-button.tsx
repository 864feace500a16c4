import { useState } from 'react';

/** Copies a value (a DNS record, a token) and says so; falls back to selecting it for Ctrl-C. */
export function CopyButton({ value, label = 'Copy' }: { value: string; label?: string }) {
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('yes');
    } catch {
      setCopied('no');
    }
    window.setTimeout(() => setCopied(null), 2000);
  };
  return (
    <button
      type="button"
      className="btn btn-ghost btn-small"
      onClick={copy}
      aria-label={`${label}: ${value.slice(0, 40)}`}
    >
      {copied === 'yes' ? 'Copied' : copied === 'no' ? 'Select and copy' : label}
      <span className="visually-hidden" role="status">
        {copied === 'yes' ? 'Copied to the clipboard' : ''}
      </span>
    </button>
  );
}
