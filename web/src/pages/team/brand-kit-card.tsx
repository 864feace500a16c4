import { useState } from 'react';
import { Button } from '../../ui/button';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { SelectField, TextField } from '../../ui/field';
import { Card } from '../../ui/page';
import { useToast } from '../../ui/toast';
import { LogoUpload } from './logo-upload';
import { BUTTON_STYLES, FONTS, orNull, useUpdateTeam, type BrandKit, type Team } from './team-query';

type Draft = Record<Exclude<keyof BrandKit, 'logo_url'>, string>;

const HEX = /^#[0-9a-fA-F]{6}$/;

function draftOf(kit: BrandKit): Draft {
  return {
    primary_color: kit.primary_color ?? '',
    accent_color: kit.accent_color ?? '',
    font: kit.font ?? '',
    button_style: kit.button_style ?? '',
    company_name: kit.company_name ?? '',
    address: kit.address ?? '',
    footer_text: kit.footer_text ?? '',
  };
}

/**
 * The brand kit templates draw on ({{brand.*}}): logo, colours, font, button shape and footer
 * words. The API takes the kit whole, so every field is sent; an empty one is null (the neutral
 * default). Any team member may change it.
 */
export function BrandKitCard({ team }: { team: Team }) {
  const toast = useToast();
  const [draft, setDraft] = useState(() => draftOf(team.brand_kit));
  const update = useUpdateTeam(() => toast('Brand kit saved'));
  const set = (key: keyof Draft) => (event: { target: { value: string } }) =>
    setDraft((current) => ({ ...current, [key]: event.target.value }));
  const save = () =>
    update.mutate({
      brand_kit: {
        logo_url: team.brand_kit.logo_url,
        primary_color: orNull(draft.primary_color),
        accent_color: orNull(draft.accent_color),
        font: (orNull(draft.font) as BrandKit['font']) ?? null,
        button_style: (orNull(draft.button_style) as BrandKit['button_style']) ?? null,
        company_name: orNull(draft.company_name),
        address: orNull(draft.address),
        footer_text: orNull(draft.footer_text),
      },
    });
  const colour = (key: 'primary_color' | 'accent_color', label: string) => (
    <div className="color-field">
      <TextField
        label={label}
        name={key}
        value={draft[key]}
        placeholder="#1a2b3c"
        onChange={set(key)}
        error={fieldError(update.error, key)}
        hint="Six-digit hex; empty for the default."
      />
      <span
        className="color-swatch"
        aria-hidden="true"
        style={{ background: HEX.test(draft[key]) ? draft[key] : 'transparent' }}
      />
    </div>
  );
  return (
    <Card title="Brand kit" id="brand-kit">
      <p className="muted">
        Templates use these through <code>{'{{brand.*}}'}</code> placeholders; a field left empty renders a neutral
        default.
      </p>
      <LogoUpload team={team} />
      <form
        aria-label="Brand kit"
        onSubmit={(event) => {
          event.preventDefault();
          save();
        }}
      >
        <div className="grid-2">
          {colour('primary_color', 'Primary colour')}
          {colour('accent_color', 'Accent colour')}
          <SelectField
            label="Font"
            value={draft.font}
            onChange={set('font')}
            error={fieldError(update.error, 'font')}
            options={[{ value: '', label: 'Default' }, ...FONTS.map((font) => ({ value: font, label: font }))]}
          />
          <SelectField
            label="Button style"
            value={draft.button_style}
            onChange={set('button_style')}
            error={fieldError(update.error, 'button_style')}
            options={[
              { value: '', label: 'Default' },
              ...BUTTON_STYLES.map((style) => ({ value: style, label: style })),
            ]}
          />
          <TextField
            label="Company name"
            value={draft.company_name}
            maxLength={200}
            onChange={set('company_name')}
            error={fieldError(update.error, 'company_name')}
          />
          <TextField
            label="Address in the footer"
            value={draft.address}
            maxLength={500}
            onChange={set('address')}
            error={fieldError(update.error, 'address')}
          />
        </div>
        <TextField
          label="Footer text"
          value={draft.footer_text}
          maxLength={500}
          onChange={set('footer_text')}
          error={fieldError(update.error, 'footer_text')}
        />
        <ErrorMessage error={update.error} />
        <div className="form-actions">
          <Button type="submit" variant="primary" busy={update.isPending}>
            Save brand kit
          </Button>
        </div>
      </form>
    </Card>
  );
}
