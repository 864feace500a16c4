import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { useRouter } from '../../router';
import { Button } from '../../ui/button';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { Checkbox, TextField } from '../../ui/field';
import { Card, Loading, PageHeader } from '../../ui/page';
import { FilterBuilder } from './filter-builder';
import { buildFilter, newCondition, newId, type GroupNode } from './filter-model';
import { LiveCount } from './live-count';
import { useFilterCatalogue } from './use-catalogue';

const startTree = (): GroupNode => ({ kind: 'group', id: newId(), mode: 'all', members: [newCondition()] });

/**
 * A new segment: its name and its filter, built with the live count beside it. The filter is
 * fixed once the segment exists (the API never changes it), so it is chosen here; members can
 * also be added by hand afterwards, with or without a filter.
 */
export function NewSegment() {
  const { navigate } = useRouter();
  const queryClient = useQueryClient();
  const catalogue = useFilterCatalogue();
  const [name, setName] = useState('');
  const [useFilter, setUseFilter] = useState(true);
  const [tree, setTree] = useState<GroupNode>(startTree);
  const [focus, setFocus] = useState<string | null>(null);
  const built = useMemo(() => buildFilter(tree, catalogue.properties), [tree, catalogue.properties]);
  const create = useMutation({
    mutationFn: () =>
      api.post<{ id: string }>('/segments', {
        name: name.trim(),
        filter: useFilter && 'filter' in built ? built.filter : null,
      }),
    onSuccess: async (created) => {
      await queryClient.invalidateQueries({ queryKey: ['/segments'] });
      navigate(`/segments/${created.id}`);
    },
  });
  const problem = useFilter && 'problem' in built ? built.problem : null;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!problem) create.mutate();
  };
  return (
    <>
      <PageHeader title="New segment" back={{ to: '/segments', label: 'Segments' }} />
      <form aria-label="New segment" className="stack" onSubmit={submit}>
        <Card>
          <TextField
            label="Name"
            required
            maxLength={200}
            value={name}
            onChange={(e) => setName(e.target.value)}
            error={fieldError(create.error, 'name')}
          />
          <Checkbox
            label="Choose members with a filter"
            checked={useFilter}
            onChange={(e) => setUseFilter(e.target.checked)}
            hint="Without one, the segment holds only the contacts you add by hand."
          />
        </Card>
        {useFilter ? (
          <Card title="Filter" id="segment-filter">
            <p className="muted">
              A contact is a member when it matches the filter or was added by hand. The filter cannot be changed once
              the segment is created.
            </p>
            {catalogue.isLoading ? (
              <Loading />
            ) : (
              <FilterBuilder
                root={tree}
                properties={catalogue.properties}
                topics={catalogue.topics}
                focus={focus}
                onChange={(next, moveTo) => {
                  setTree(next);
                  setFocus(moveTo ?? null);
                }}
              />
            )}
            <ErrorMessage error={catalogue.error} />
            <LiveCount filter={'filter' in built ? built.filter : null} problem={problem} />
          </Card>
        ) : null}
        <ErrorMessage error={create.error} title="The segment was not created" />
        <div className="row">
          <Button type="submit" variant="primary" busy={create.isPending} disabledReason={problem}>
            Create segment
          </Button>
          <Button onClick={() => navigate('/segments')}>Cancel</Button>
        </div>
      </form>
    </>
  );
}
