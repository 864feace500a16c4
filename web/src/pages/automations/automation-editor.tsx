import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { useRouter } from '../../router';
import { Button } from '../../ui/button';
import { ErrorMessage } from '../../ui/error-message';
import { TextField } from '../../ui/field';
import { Card } from '../../ui/page';
import { useToast } from '../../ui/toast';
import { STEP_PALETTE, UNAVAILABLE_STEPS, type Automation, type Graph, type StepType } from './automation-types';
import { GraphCanvas } from './graph-canvas';
import { graphErrors, stepOfPath } from './graph-errors';
import { addStep, connect, removeStep, setConfig, STARTING_GRAPH, toBody } from './graph-model';
import { StepPanel } from './step-panel';

/**
 * The graph editor: the canvas, a palette of step types, the selected step's panel. Save sends
 * the whole graph (a new automation, or a new version of this one); the API validates it whole
 * and its errors are drawn on the steps they name and listed under the canvas.
 */
export function AutomationEditor({ automation }: { automation?: Automation }) {
  const client = useQueryClient();
  const toast = useToast();
  const { navigate } = useRouter();
  const [name, setName] = useState(automation?.name ?? '');
  const [graph, setGraph] = useState<Graph>(automation ? toBody(automation) : STARTING_GRAPH);
  const [selected, setSelected] = useState<string>(automation ? '' : 'trigger');
  const [dirty, setDirty] = useState(false);

  const save = useMutation({
    mutationFn: async () => {
      const body = { name, ...toBody(graph) };
      if (automation) return api.patch<{ id: string }>(`/automations/${automation.id}`, body);
      return api.post<{ id: string }>('/automations', body);
    },
    onSuccess: async (saved) => {
      setDirty(false);
      await client.invalidateQueries({ queryKey: ['/automations'] });
      toast(automation ? 'Saved: a new version is active' : 'Automation created');
      if (!automation) navigate(`/automations/${saved.id}`);
    },
  });
  const errors = graphErrors(
    save.error,
    graph.steps.map((s) => s.key),
  );

  const edit = (next: Graph) => {
    setGraph(next);
    setDirty(true);
  };
  const add = (type: StepType) => {
    const result = addStep(graph, type, selected || undefined);
    edit(result.graph);
    setSelected(result.key);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };

  return (
    <form onSubmit={submit} aria-label="Automation graph">
      <Card>
        <div className="flow-toolbar">
          <TextField label="Name" value={name} required onChange={(e) => (setName(e.target.value), setDirty(true))} />
          <div className="flow-save">
            <Button type="submit" variant="primary" busy={save.isPending}>
              {automation ? 'Save new version' : 'Create automation'}
            </Button>
            {dirty ? <span className="muted">Unsaved changes</span> : null}
          </div>
        </div>
        <div className="flow-palette" role="group" aria-label="Add a step">
          <span className="flow-palette-title">Add a step{selected ? ` after ${selected}` : ''}:</span>
          {STEP_PALETTE.map((entry) => (
            <Button key={entry.type} title={entry.hint} onClick={() => add(entry.type)}>
              + {entry.label}
            </Button>
          ))}
          {UNAVAILABLE_STEPS.map((entry) => (
            <Button key={entry.type} disabled title="Not available on this appliance">
              {entry.label}
            </Button>
          ))}
        </div>
        <div className="flow-editor">
          <GraphCanvas
            label="Automation graph canvas"
            graph={graph}
            errors={errors.byStep}
            selected={selected}
            onSelect={setSelected}
            onConnect={(from, to, type) => edit(connect(graph, from, to, type))}
          />
          <StepPanel
            graph={graph}
            stepKey={selected}
            error={errors.byStep.get(selected)}
            onSelect={setSelected}
            onConfig={(key, config) => edit(setConfig(graph, key, config))}
            onConnect={(from, to, type) => edit(connect(graph, from, to, type))}
            onRemove={(key) => {
              edit(removeStep(graph, key));
              setSelected('');
            }}
          />
        </div>
        {errors.all.length > 0 ? (
          <div className="alert alert-error" role="alert">
            <strong>The graph was not saved: </strong>
            {errors.all.length === 1 ? 'one problem' : `${errors.all.length} problems`}.
            <ul aria-label="Validation errors">
              {errors.all.map((error) => {
                const key = stepOfPath(error.path);
                return (
                  <li key={error.path}>
                    {key && graph.steps.some((s) => s.key === key) ? (
                      <button type="button" className="link-button mono" onClick={() => setSelected(key)}>
                        {key}
                      </button>
                    ) : (
                      <code>{error.path}</code>
                    )}
                    : {error.message}
                  </li>
                );
              })}
            </ul>
          </div>
        ) : (
          <ErrorMessage error={save.error} />
        )}
      </Card>
    </form>
  );
}
