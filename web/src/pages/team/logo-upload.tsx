import { useMutation } from '@tanstack/react-query';
import { useId, useRef } from 'react';
import { api } from '../../api/client';
import { Button } from '../../ui/button';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { useToast } from '../../ui/toast';
import { useUpdateTeam, type Team } from './team-query';

type Upload = {
  object: 'brand_kit_upload';
  url: string;
  content_type: string;
  width: number | null;
  height: number | null;
};

/** A file's bytes as base64 (the upload route takes JSON `{ content }`, not multipart). */
function readBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(new Error('The file could not be read.'));
    reader.readAsDataURL(file);
  });
}

/**
 * The brand logo: upload the file (POST /team/brand-kit/uploads checks and stores it), then put
 * its URL in the brand kit (PATCH /team; the upload alone changes nothing). The rest of the
 * brand kit is sent as saved, since the API takes the kit whole.
 */
export function LogoUpload({ team }: { team: Team }) {
  const inputId = useId();
  const input = useRef<HTMLInputElement>(null);
  const toast = useToast();
  const update = useUpdateTeam();
  const upload = useMutation({
    mutationFn: async (file: File) => {
      const uploaded = await api.post<Upload>('/team/brand-kit/uploads', { content: await readBase64(file) });
      return update.mutateAsync({ brand_kit: { ...team.brand_kit, logo_url: uploaded.url } });
    },
    onSuccess: () => toast('Logo saved'),
    onSettled: () => {
      if (input.current) input.current.value = '';
    },
  });
  const remove = () =>
    update.mutate({ brand_kit: { ...team.brand_kit, logo_url: null } }, { onSuccess: () => toast('Logo removed') });
  const logo = team.brand_kit.logo_url;
  const uploadError = fieldError(upload.error, 'content');
  return (
    <div className="logo-upload">
      <div className="logo-preview">
        {logo ? <img src={logo} alt={`Logo of ${team.name}`} /> : <span className="muted">No logo</span>}
      </div>
      <div className="stack">
        <div className={`field${uploadError ? ' field-invalid' : ''}`}>
          <label htmlFor={inputId}>{logo ? 'Replace the logo' : 'Upload a logo'}</label>
          <input
            ref={input}
            id={inputId}
            type="file"
            accept="image/png,image/jpeg,image/svg+xml"
            disabled={upload.isPending}
            aria-describedby={`${inputId}-hint`}
            onChange={(event) => {
              const file = event.target.files?.[0];
              if (file) upload.mutate(file);
            }}
          />
          <span className="field-hint" id={`${inputId}-hint`}>
            PNG or JPG up to 256 KB and 4096 pixels a side, or SVG up to 32 KB without scripts or links.
          </span>
        </div>
        {upload.isPending ? (
          <span role="status" className="muted">
            Uploading…
          </span>
        ) : null}
        <ErrorMessage error={upload.error} title="The logo was not saved." />
        {logo ? (
          <div>
            <Button className="btn-small" busy={update.isPending && !upload.isPending} onClick={remove}>
              Remove the logo
            </Button>
          </div>
        ) : null}
      </div>
    </div>
  );
}
