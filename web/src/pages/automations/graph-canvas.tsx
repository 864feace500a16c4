import '@xyflow/react/dist/style.css';
import {
  Background,
  Controls,
  Handle,
  MarkerType,
  Position,
  ReactFlow,
  ReactFlowProvider,
  useReactFlow,
  type Connection as FlowConnection,
  type Edge,
  type Node,
  type NodeProps,
} from '@xyflow/react';
import { useEffect, useMemo } from 'react';
import { CONNECTION_LABELS, stepLabel, type ConnectionType, type Graph, type Step } from './automation-types';
import { layoutGraph, NODE_WIDTH } from './graph-layout';
import { stepSummary } from './step-summary';
import { useTemplateNames } from './use-template-names';

/** What a node shows besides its step: its validation error, or how a run went through it. */
type StepNodeData = {
  step: Step;
  error?: string;
  runStatus?: string;
  selected: boolean;
  editable: boolean;
  names: Map<string, string>;
};
type StepNode = Node<StepNodeData, 'step'>;

function StepNodeView({ data }: NodeProps<StepNode>) {
  const { step, error, runStatus, selected, editable, names } = data;
  const classes = ['flow-step', `flow-step-${step.type}`];
  if (error) classes.push('flow-step-invalid');
  if (selected) classes.push('flow-step-selected');
  if (runStatus) classes.push(`flow-step-run-${runStatus}`);
  return (
    <div className={classes.join(' ')} style={{ width: NODE_WIDTH }} data-step-key={step.key}>
      {step.type !== 'trigger' ? <Handle type="target" position={Position.Top} isConnectable={editable} /> : null}
      <div className="flow-step-type">{stepLabel(step.type)}</div>
      <div className="flow-step-key mono">{step.key}</div>
      <div className="flow-step-summary">{stepSummary(step, names)}</div>
      {runStatus ? <div className="flow-step-run">Run: {runStatus}</div> : null}
      {error ? (
        <div className="flow-step-error" role="note">
          {error}
        </div>
      ) : null}
      {step.type === 'condition' ? (
        <>
          <div className="flow-step-branches" aria-hidden="true">
            <span>met ↓</span>
            <span>not met ↓</span>
          </div>
          <Handle
            type="source"
            id="condition_met"
            position={Position.Bottom}
            style={{ left: '25%' }}
            isConnectable={editable}
          />
          <Handle
            type="source"
            id="condition_not_met"
            position={Position.Bottom}
            style={{ left: '75%' }}
            isConnectable={editable}
          />
        </>
      ) : (
        <Handle type="source" id="default" position={Position.Bottom} isConnectable={editable} />
      )}
    </div>
  );
}

const nodeTypes = { step: StepNodeView };

export type GraphCanvasProps = {
  graph: Graph;
  /** Validation errors by step key (editor), shown on the node. */
  errors?: Map<string, string>;
  /** A run's step statuses by key (run page): visited nodes and the edges between them stand out. */
  runStatuses?: Map<string, string>;
  selected?: string | undefined;
  onSelect?: (key: string) => void;
  /** Present in the editor: a connection dragged from a node's handle to another node. */
  onConnect?: (from: string, to: string, type: ConnectionType) => void;
  label: string;
};

/** The graph drawn with React Flow: laid out top to bottom, edges labelled by their type. */
export function GraphCanvas(props: GraphCanvasProps) {
  return (
    <ReactFlowProvider>
      <Canvas {...props} />
    </ReactFlowProvider>
  );
}

const VISITED = new Set(['completed', 'running', 'waiting', 'skipped', 'failed']);

function Canvas({ graph, errors, runStatuses, selected, onSelect, onConnect, label }: GraphCanvasProps) {
  const editable = Boolean(onConnect);
  const flow = useReactFlow();
  const positions = useMemo(() => layoutGraph(graph), [graph]);
  const names = useTemplateNames();
  const nodes: StepNode[] = graph.steps.map((step) => ({
    id: step.key,
    type: 'step',
    position: positions.get(step.key) ?? { x: 0, y: 0 },
    ariaLabel: `${stepLabel(step.type)} step ${step.key}${errors?.get(step.key) ? `: error: ${errors.get(step.key)}` : ''}`,
    selected: step.key === selected,
    data: {
      step,
      error: errors?.get(step.key),
      runStatus: runStatuses?.get(step.key),
      selected: step.key === selected,
      editable,
      names,
    },
  }));
  const edges: Edge[] = graph.connections.map((c, index) => {
    const type = c.type ?? 'default';
    const walked =
      runStatuses && VISITED.has(runStatuses.get(c.from) ?? '') && VISITED.has(runStatuses.get(c.to) ?? '');
    return {
      id: `${c.from}-${type}-${c.to}-${index}`,
      source: c.from,
      target: c.to,
      sourceHandle: graph.steps.find((s) => s.key === c.from)?.type === 'condition' ? type : 'default',
      label: CONNECTION_LABELS[type] ?? type,
      type: 'smoothstep',
      className: `flow-edge flow-edge-${type}${walked ? ' flow-edge-walked' : ''}`,
      markerEnd: { type: MarkerType.ArrowClosed, width: 14, height: 14, color: walked ? '#176c34' : '#57606a' },
      labelBgPadding: [6, 3] as [number, number],
      labelBgBorderRadius: 4,
    };
  });

  // Keep the whole graph in view as steps come and go.
  // (Errors grow their nodes: refit then too.)
  const shape = `${graph.steps.map((s) => s.key).join(',')}|${[...(errors?.keys() ?? [])].join(',')}`;
  useEffect(() => {
    const timer = setTimeout(() => void flow.fitView({ padding: 0.2, maxZoom: 1 }), 50);
    return () => clearTimeout(timer);
  }, [shape, flow]);

  const connectFromHandle = (connection: FlowConnection) => {
    if (!onConnect || !connection.source || !connection.target || connection.source === connection.target) return;
    onConnect(connection.source, connection.target, (connection.sourceHandle ?? 'default') as ConnectionType);
  };

  return (
    <div className="flow-canvas" role="region" aria-label={label}>
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        nodesDraggable={false}
        nodesConnectable={editable}
        edgesFocusable={false}
        deleteKeyCode={null}
        onNodeClick={(_, node) => onSelect?.(node.id)}
        onConnect={connectFromHandle}
        fitView
        fitViewOptions={{ padding: 0.2, maxZoom: 1 }}
        minZoom={0.3}
        maxZoom={1.5}
      >
        <Background gap={20} />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}
