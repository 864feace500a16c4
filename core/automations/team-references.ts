import type { GraphProblems, GraphReference } from './graph-validation.js';

/**
 * The team's side of graph validation: what the references a graph makes must name. Injected
 * by the service (custom events, templates, segments of the team), so graph-validation.ts stays
 * free of I/O. Properties and topics are checked by graph-validation.ts itself from the lists it
 * is given.
 */
export type TeamLookups = {
  /** The id of the live custom event definition of this name, if there is one. */
  customEventId(name: string): Promise<string | undefined>;
  /** The template by id or alias: missing, or whether it has a published version. */
  templateState(idOrAlias: string): Promise<'missing' | 'draft' | 'published'>;
  /** Whether a live segment has this id. */
  segmentExists(id: string): Promise<boolean>;
};

/** Files a problem under `steps.<key>` for every reference the team does not hold. */
export async function checkTeamReferences(
  references: GraphReference[],
  lookups: TeamLookups,
  problems: GraphProblems,
): Promise<void> {
  // One lookup per distinct name, however many steps use it.
  const memo = new Map<string, Promise<string | null>>();
  const problemOf = (ref: GraphReference): Promise<string | null> => {
    const id = ref.kind === 'custom_event' ? ref.name : ref.id;
    const memoKey = `${ref.kind}:${id}`;
    let found = memo.get(memoKey);
    if (!found) {
      found = (async () => {
        switch (ref.kind) {
          case 'custom_event':
            return (await lookups.customEventId(ref.name))
              ? null
              : `event_name: no live custom event is named ${JSON.stringify(ref.name)}`;
          case 'template': {
            const state = await lookups.templateState(ref.id);
            if (state === 'published') return null;
            return state === 'draft'
              ? `template.id: the template ${JSON.stringify(ref.id)} is not published`
              : `template.id: no template ${JSON.stringify(ref.id.slice(0, 120))}`;
          }
          case 'segment':
            return (await lookups.segmentExists(ref.id))
              ? null
              : `segment_id: no segment ${JSON.stringify(ref.id.slice(0, 120))}`;
        }
      })();
      memo.set(memoKey, found);
    }
    return found;
  };
  const results = await Promise.all(references.map(problemOf));
  references.forEach((ref, i) => {
    if (results[i]) problems.add(`steps.${ref.step}`, results[i]!);
  });
}
