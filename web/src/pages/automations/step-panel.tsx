import { Button } from '../../ui/button';
import { SelectField } from '../../ui/field';
import { CONNECTION_LABELS, stepLabel, type ConnectionType, type Graph } from './automation-types';
import { branchesOf, targetOf } from './graph-model';
import { StepConfigForm } from './step-config-form';

const BRANCH_LABELS: Record<string, string> = {
  default: 'Next step',
  condition_met: 'If met, go to',
  condition_not_met: 'If not met, go to',
};

/**
 * The selected step's side panel: its settings, where it leads (the keyboard's way to connect
 * steps, the same as dragging from a node's handle), its error, and removing it.
 */
export function StepPanel({
  graph,
  stepKey,
  error,
  onSelect,
  onConfig,
  onConnect,
  onRemove,
}: {
  graph: Graph;
  stepKey: string;
  error: string | undefined;
  onSelect: (key: string) => void;
  onConfig: (key: string, config: Record<string, unknown>) => void;
  onConnect: (from: string, to: string, type: ConnectionType) => void;
  onRemove: (key: string) => void;
}) {
  const step = graph.steps.find((s) => s.key === stepKey);
  const stepOptions = graph.steps.map((s) => ({ value: s.key, label: `${s.key} (${stepLabel(s.type)})` }));
  return (
    <aside className="flow-panel" aria-label="Step settings">
      <SelectField
        label="Edit step"
        value={step ? step.key : ''}
        onChange={(e) => onSelect(e.target.value)}
        options={[{ value: '', label: 'Choose a step…' }, ...stepOptions]}
      />
      {step ? (
        <>
          <h3>
            {stepLabel(step.type)} <span className="mono muted">{step.key}</span>
          </h3>
          {error ? (
            <div className="alert alert-error" role="alert">
              {error}
            </div>
          ) : null}
          <StepConfigForm step={step} onChange={(config) => onConfig(step.key, config)} />
          {branchesOf(step).map((branch) => (
            <SelectField
              key={branch}
              label={BRANCH_LABELS[branch] ?? CONNECTION_LABELS[branch] ?? branch}
              value={targetOf(graph, step.key, branch)}
              onChange={(e) => onConnect(step.key, e.target.value, branch)}
              options={[
                { value: '', label: '(end of the run)' },
                ...stepOptions.filter((o) => o.value !== step.key && o.value !== graphTrigger(graph)),
              ]}
            />
          ))}
          <Button variant="danger" onClick={() => onRemove(step.key)}>
            Remove step
          </Button>
        </>
      ) : (
        <p className="muted">Choose a step on the canvas or in the list above to edit it.</p>
      )}
    </aside>
  );
}

const graphTrigger = (graph: Graph) => graph.steps.find((s) => s.type === 'trigger')?.key;
