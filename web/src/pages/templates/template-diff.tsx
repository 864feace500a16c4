import { useMemo } from 'react';
import { ErrorMessage } from '../../ui/error-message';
import { Loading } from '../../ui/page';
import { diffLines, withContext, type DiffLine } from './line-diff';
import type { Baseline } from './template-baseline';
import { versionParts, type VersionContent } from './version-content';

const lines = (n: number) => `${n} line${n === 1 ? '' : 's'}`;

const PARTS = [
  { id: 'settings', label: 'Subject, addresses and variables' },
  { id: 'html', label: 'HTML' },
  { id: 'text', label: 'Text part' },
] as const;

/** How the title and summary name the version compared with (`chosen`: one picked in the versions card). */
export function baselineName(baseline: Baseline, chosen = false): string {
  if (baseline.kind === 'known')
    return baseline.version.published ? 'the published version' : `version ${baseline.version.version}`;
  return chosen ? 'the chosen version' : 'the published version';
}

/**
 * What publishing would change: the editor's content (unsaved edits included) against the
 * published version (or the version chosen in the versions card), part by part. Each changed
 * line carries its sign and a spoken word, not only its colour.
 */
export function TemplateDiff({ baseline, current }: { baseline: Baseline; current: VersionContent }) {
  const diffs = useMemo(() => {
    const before = versionParts(baseline.kind === 'known' ? baseline.content : null);
    const after = versionParts(current);
    return PARTS.map((part) => ({ ...part, lines: diffLines(before[part.id], after[part.id]) }));
  }, [baseline, current]);
  if (baseline.kind === 'loading') return <Loading label="Reading the version to compare with…" />;
  if (baseline.kind === 'error') return <ErrorMessage error={baseline.error} title="The version cannot be read." />;
  const changed = diffs.filter((part) => part.lines.some((line) => line.kind !== 'same'));
  const count = (kind: DiffLine['kind']) =>
    changed.reduce((sum, part) => sum + part.lines.filter((line) => line.kind === kind).length, 0);
  return (
    <div className="stack">
      <p className="diff-summary" role="status">
        {baseline.kind === 'none'
          ? 'Nothing is published yet: every line is new. '
          : changed.length === 0
            ? `No changes: the editor matches ${baselineName(baseline)}.`
            : ''}
        {changed.length > 0 ? `${lines(count('added'))} added, ${lines(count('removed'))} removed.` : null}
      </p>
      {changed.map((part) => (
        <section key={part.id} aria-label={`Changes in ${part.label}`}>
          <h3>{part.label}</h3>
          <div className="diff">
            {withContext(part.lines).map((row, index) =>
              row.kind === 'skipped' ? (
                <div key={index} className="diff-line diff-skipped">
                  … {row.count} unchanged line{row.count === 1 ? '' : 's'}
                </div>
              ) : (
                <div key={index} className={`diff-line diff-${row.kind}`}>
                  <span className="diff-sign" aria-hidden="true">
                    {row.kind === 'added' ? '+' : row.kind === 'removed' ? '−' : ' '}
                  </span>
                  {row.kind !== 'same' ? <span className="visually-hidden">{row.kind}: </span> : null}
                  <code>{row.text || ' '}</code>
                </div>
              ),
            )}
          </div>
        </section>
      ))}
    </div>
  );
}
