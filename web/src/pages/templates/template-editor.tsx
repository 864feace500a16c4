import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { api } from '../../api/client';
import { useSearchParam } from '../../router';
import { StatusBadge, Badge } from '../../ui/badge';
import { Button } from '../../ui/button';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { TextArea, TextField } from '../../ui/field';
import { Card, PageHeader } from '../../ui/page';
import { useToast } from '../../ui/toast';
import { useAiAssist } from '../ai/ai-availability';
import { AiDraftDialog } from './ai-draft-dialog';
import { CodeEditor } from './code-editor';
import { SendTestForm } from './send-test-form';
import { SubjectSuggestions } from './subject-suggestions';
import { useBaseline } from './template-baseline';
import { changedFields, parseFallback, toDraft, toPayload, type Draft } from './template-draft';
import { baselineName, TemplateDiff } from './template-diff';
import { TemplatePreview } from './template-preview';
import { versionsPath, type TemplateDetail } from './template-types';
import { TemplateVersionsCard } from './template-versions-card';
import { VariablesEditor } from './variables-editor';

const samplesOf = (draft: Draft) => Object.fromEntries(draft.variables.map((row) => [row.key.trim(), row.sample]));

/**
 * One template being edited: the working copy lives here until "Save draft" (PATCH with the
 * fields that changed) or "Publish" (saving first when needed, then POST …/publish). After
 * either, the copy is reloaded from the API, keeping the sample values.
 */
export function TemplateEditor({ template, cacheKey }: { template: TemplateDetail; cacheKey: readonly unknown[] }) {
  const client = useQueryClient();
  const toast = useToast();
  const [draft, setDraft] = useState(() => toDraft(template));
  const [drafting, setDrafting] = useState(false);
  const ai = useAiAssist();
  const saved = useMemo(() => toDraft(template), [template]);
  const changes = changedFields(draft, saved);
  const dirty = Object.keys(changes).length > 0;
  const badFallback = draft.variables.some((row) => parseFallback(row).error);
  // The version the diff compares with: chosen in the versions card, else the published one.
  const [compareId, setCompareId] = useSearchParam('compare');
  const baseline = useBaseline(template, compareId);
  const current = useMemo(() => {
    const { from, reply_to, subject, html, text, variables } = toPayload(draft);
    return { from, reply_to, subject, html, text, variables };
  }, [draft]);

  // Leaving with unsaved edits asks first (a reload or closing the tab; in-app links do not unload).
  useEffect(() => {
    if (!dirty) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);

  const reload = async (samples: Record<string, string>) => {
    const fresh = await api.get<TemplateDetail>(`/templates/${template.id}`);
    client.setQueryData(cacheKey, fresh);
    setDraft(toDraft(fresh, samples));
    await client.invalidateQueries({ queryKey: ['/templates', 'list'] });
    await client.invalidateQueries({ queryKey: [versionsPath(template.id)] });
  };
  const saveChanges = async () => {
    if (dirty) await api.patch(`/templates/${template.id}`, changes);
  };
  const save = useMutation({
    mutationFn: saveChanges,
    onSuccess: async () => {
      await reload(samplesOf(draft));
      toast(
        template.status === 'published' ? 'Saved as a draft: sends still use the published version' : 'Draft saved',
      );
    },
  });
  const publish = useMutation({
    mutationFn: async () => {
      // Saved (and reloaded) first, so a publish that then fails leaves no edit looking unsaved.
      if (dirty) {
        await saveChanges();
        await reload(samplesOf(draft));
      }
      await api.post(`/templates/${template.id}/publish`);
    },
    onSuccess: async () => {
      await reload(samplesOf(draft));
      toast('Published: sends use this version now');
    },
  });
  const error = save.error ?? publish.error;
  const set = (change: Partial<Draft>) => setDraft((value) => ({ ...value, ...change }));
  const blocked = badFallback ? 'A fallback is not of its variable’s type: fix it below first.' : null;
  const pendingForSends = dirty || template.status === 'draft' || template.has_unpublished_versions;

  return (
    <>
      <PageHeader
        title={template.name}
        back={{ to: '/templates', label: 'Templates' }}
        description={
          <span className="template-status">
            <StatusBadge status={template.status} />
            {template.has_unpublished_versions ? <Badge tone="warn">unpublished changes</Badge> : null}
            {dirty ? <Badge tone="info">unsaved edits</Badge> : null}
            {template.alias ? (
              <span>
                Alias <code>{template.alias}</code>
              </span>
            ) : null}
          </span>
        }
        actions={
          <>
            <Button
              busy={save.isPending}
              disabled={!dirty || publish.isPending}
              disabledReason={blocked}
              onClick={() => save.mutate()}
            >
              Save draft
            </Button>
            <Button
              variant="primary"
              busy={publish.isPending}
              disabled={
                save.isPending || (!dirty && template.status === 'published' && !template.has_unpublished_versions)
              }
              disabledReason={blocked}
              onClick={() => publish.mutate()}
            >
              {dirty ? 'Save and publish' : 'Publish'}
            </Button>
          </>
        }
      />
      <ErrorMessage error={error} title={publish.error ? 'Not published.' : 'Not saved.'} />
      <Card title="Details" id="template-details">
        <div className="grid-2">
          <TextField
            label="Name"
            value={draft.name}
            onChange={(event) => set({ name: event.target.value })}
            required
            error={fieldError(error, 'name')}
          />
          <TextField
            label="Alias"
            value={draft.alias}
            onChange={(event) => set({ alias: event.target.value })}
            hint="Optional: send with it instead of the id (lower-case letters, digits, - and _)."
            error={fieldError(error, 'alias')}
          />
          <TextField
            label="Subject"
            value={draft.subject}
            onChange={(event) => set({ subject: event.target.value })}
            hint="Placeholders work here too. Empty: each send gives one."
            error={fieldError(error, 'subject')}
          />
          <TextField
            label="From"
            value={draft.from}
            onChange={(event) => set({ from: event.target.value })}
            placeholder="Team <hello@your-domain>"
            hint="Optional: an address at a verified domain, or Name <address>."
            error={fieldError(error, 'from')}
          />
          <TextField
            label="Reply-to"
            value={draft.replyTo}
            onChange={(event) => set({ replyTo: event.target.value })}
            hint="Optional; several addresses separated by commas."
            error={fieldError(error, 'reply_to')}
          />
        </div>
        <SubjectSuggestions
          subject={draft.subject}
          html={draft.html}
          text={draft.text}
          onUse={(subject) => set({ subject })}
        />
      </Card>
      <div className="grid-2 template-workbench">
        <Card
          title="HTML"
          id="template-html"
          actions={
            ai.enabled ? (
              <Button className="btn-small" onClick={() => setDrafting(true)}>
                Draft with AI
              </Button>
            ) : null
          }
        >
          <AiDraftDialog
            open={drafting}
            onClose={() => setDrafting(false)}
            existingHtml={draft.html}
            onUse={({ html, text }) => set({ html, text })}
          />
          <CodeEditor
            label="HTML body"
            value={draft.html}
            onChange={(html) => set({ html })}
            hint="Placeholders: {{KEY}} for a declared variable, {{brand.primary_color}} and the other brand tokens."
            error={fieldError(error, 'html')}
          />
        </Card>
        <Card title="Preview" id="template-preview">
          <TemplatePreview draft={draft} overrides={template.brand_overrides} />
        </Card>
      </div>
      <Card title="Variables" id="template-variables">
        <VariablesEditor draft={draft} onChange={(variables) => set({ variables })} error={error} />
      </Card>
      <Card title="Text part" id="template-text">
        <TextArea
          label="Text body"
          rows={8}
          value={draft.text}
          onChange={(event) => set({ text: event.target.value })}
          hint="For mail clients that show text only. Optional."
          error={fieldError(error, 'text')}
        />
      </Card>
      <TemplateVersionsCard templateId={template.id} chosenId={compareId} onChoose={setCompareId} />
      <Card
        title={`Changes from ${baselineName(baseline, Boolean(compareId))}`}
        id="template-diff"
        actions={
          compareId ? (
            <Button className="btn-small" onClick={() => setCompareId(null)}>
              Compare with the published version
            </Button>
          ) : null
        }
      >
        <TemplateDiff baseline={baseline} current={current} />
      </Card>
      <Card title="Send a test" id="template-test">
        <SendTestForm template={template} draft={draft} pending={pendingForSends} />
      </Card>
    </>
  );
}
