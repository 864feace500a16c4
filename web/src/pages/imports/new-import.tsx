import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type ChangeEvent, type FormEvent } from 'react';
import { api, type List } from '../../api/client';
import { useRouter } from '../../router';
import { Button } from '../../ui/button';
import { ErrorMessage } from '../../ui/error-message';
import { SelectField } from '../../ui/field';
import { Card, Loading } from '../../ui/page';
import { ColumnMapping } from './column-mapping';
import { readCsv, type CsvPreview } from './csv-preview';
import type { PropertyDef, SegmentItem } from './import-types';
import { columnMap, guessTargets, mappingProblem, type Target } from './type-check';

const MAX_BYTES = 50 * 1024 * 1024;

/**
 * Upload a CSV: the file is read here first (its header, its rows counted, every mapped value
 * checked against its target's type), the columns mapped to fields and properties, then sent
 * with the map (POST /contacts/imports). The import page then follows its progress.
 */
export function NewImport({ onCancel }: { onCancel: () => void }) {
  const { navigate } = useRouter();
  const queryClient = useQueryClient();
  const properties = useQuery({
    queryKey: ['/contact-properties', 'all'],
    queryFn: ({ signal }) => api.get<List<PropertyDef>>('/contact-properties', { query: { limit: 100 }, signal }),
  });
  const segments = useQuery({
    queryKey: ['/segments', 'all'],
    queryFn: ({ signal }) => api.get<List<SegmentItem>>('/segments', { query: { limit: 100 }, signal }),
  });
  const declared = properties.data?.data ?? [];
  const [file, setFile] = useState<File | null>(null);
  const [csv, setCsv] = useState<CsvPreview | null>(null);
  const [readError, setReadError] = useState<string | null>(null);
  const [targets, setTargets] = useState<Target[]>([]);
  const [onConflict, setOnConflict] = useState('skip');
  const [segment, setSegment] = useState('');

  const choose = async (event: ChangeEvent<HTMLInputElement>) => {
    const chosen = event.target.files?.[0] ?? null;
    setFile(chosen);
    setCsv(null);
    setReadError(null);
    if (!chosen) return;
    if (chosen.size > MAX_BYTES) return setReadError('The file is larger than 50 MB: split it in parts.');
    const read = readCsv(await chosen.text());
    if (read.header.every((name) => name === '')) return setReadError('The file has no header row.');
    setCsv(read);
    setTargets(guessTargets(read.header, declared));
  };

  const start = useMutation({
    mutationFn: () => {
      const form = new FormData();
      form.append('file', file!, file!.name);
      form.append('column_map', JSON.stringify(columnMap(csv!.header, targets)));
      form.append('on_conflict', onConflict);
      if (segment) form.append('segments', JSON.stringify([{ id: segment }]));
      return api.post<{ id: string }>('/contacts/imports', form);
    },
    onSuccess: async (created) => {
      await queryClient.invalidateQueries({ queryKey: ['/contacts/imports'] });
      // The row count is known only here: the progress bar's whole travels with the address.
      navigate(`/imports/${created.id}?rows=${csv!.rowCount}`);
    },
  });
  const problem = csv ? mappingProblem(targets) : 'Choose a CSV file.';
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!problem) start.mutate();
  };
  return (
    <Card title="New import" id="new-import">
      <form className="stack" aria-label="New import" onSubmit={submit}>
        <div className="field">
          <label htmlFor="import-file">CSV file</label>
          <input
            id="import-file"
            type="file"
            accept=".csv,text/csv"
            disabled={properties.isLoading}
            onChange={choose}
            aria-describedby="import-file-hint"
          />
          <span className="field-hint" id="import-file-hint">
            Up to 50 MB, with a header row. It is read here first: nothing is sent until you start the import.
          </span>
        </div>
        {readError ? (
          <p className="field-error" role="alert">
            {readError}
          </p>
        ) : null}
        {properties.isLoading ? <Loading /> : null}
        {csv ? (
          <>
            <p role="status">
              <strong>{csv.rowCount.toLocaleString()}</strong> rows and {csv.header.length} columns in{' '}
              <code>{file?.name}</code>.
            </p>
            <ColumnMapping csv={csv} targets={targets} properties={declared} onChange={setTargets} />
            <div className="row">
              <SelectField
                label="Contacts already there"
                value={onConflict}
                onChange={(e) => setOnConflict(e.target.value)}
                options={[
                  { value: 'skip', label: 'Leave them as they are' },
                  { value: 'upsert', label: 'Update them from the file' },
                ]}
              />
              <SelectField
                label="Add every contact to a segment"
                value={segment}
                onChange={(e) => setSegment(e.target.value)}
                options={[
                  { value: '', label: 'No segment' },
                  ...(segments.data?.data ?? []).map((s) => ({ value: s.id, label: s.name })),
                ]}
              />
            </div>
          </>
        ) : null}
        <ErrorMessage error={properties.error} />
        <ErrorMessage error={start.error} title="The import did not start" />
        <div className="row">
          <Button
            type="submit"
            variant="primary"
            busy={start.isPending}
            disabledReason={csv ? problem : null}
            disabled={!csv}
          >
            Start import
          </Button>
          <Button onClick={onCancel}>Cancel</Button>
        </div>
      </form>
    </Card>
  );
}
