import { useState } from 'react';
import { Button } from '../../ui/button';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { TextField } from '../../ui/field';
import { Card } from '../../ui/page';
import { useToast } from '../../ui/toast';
import { orNull, useUpdateTeam, type PostalAddress, type Team } from './team-query';

type Address = Record<keyof PostalAddress, string>;

const FIELDS: { key: keyof PostalAddress; label: string; autoComplete: string; hint?: string; optional?: boolean }[] = [
  { key: 'line1', label: 'Street address', autoComplete: 'address-line1' },
  { key: 'line2', label: 'Address line 2', autoComplete: 'address-line2', optional: true },
  { key: 'city', label: 'City', autoComplete: 'address-level2' },
  { key: 'state', label: 'State or region', autoComplete: 'address-level1', optional: true },
  { key: 'postal_code', label: 'Postal code', autoComplete: 'postal-code' },
  {
    key: 'country',
    label: 'Country code',
    autoComplete: 'country',
    hint: 'Two capital letters (ISO 3166-1), such as FR, DE or US.',
  },
];

function fromTeam(address: PostalAddress | null): Address {
  return {
    line1: address?.line1 ?? '',
    line2: address?.line2 ?? '',
    city: address?.city ?? '',
    state: address?.state ?? '',
    postal_code: address?.postal_code ?? '',
    country: address?.country ?? '',
  };
}

/**
 * The sender's name and postal address (the address is what marketing mail must carry, so the
 * API wants it before a sender name). Any team member may change these. The address is sent
 * whole once any field of it is filled; the API names each field it refuses.
 */
export function SenderIdentityCard({ team }: { team: Team }) {
  const toast = useToast();
  const [senderName, setSenderName] = useState(team.sender_identity.sender_name ?? '');
  const [address, setAddress] = useState(() => fromTeam(team.sender_identity.postal_address));
  const update = useUpdateTeam(() => toast('Sender identity saved'));
  const save = () => {
    const anyAddress = Object.values(address).some((value) => value.trim() !== '');
    update.mutate({
      sender_name: orNull(senderName),
      ...(anyAddress
        ? {
            postal_address: {
              line1: address.line1.trim(),
              line2: orNull(address.line2),
              city: address.city.trim(),
              state: orNull(address.state),
              postal_code: address.postal_code.trim(),
              country: address.country.trim(),
            },
          }
        : {}),
    });
  };
  return (
    <Card title="Sender identity" id="sender-identity">
      <form
        aria-label="Sender identity"
        onSubmit={(event) => {
          event.preventDefault();
          save();
        }}
      >
        <TextField
          label="Sender name"
          name="sender_name"
          value={senderName}
          maxLength={200}
          onChange={(event) => setSenderName(event.target.value)}
          error={fieldError(update.error, 'sender_name')}
          hint="Who your mail is from, in words (optional). Needs the postal address below."
        />
        <fieldset className="address-fields">
          <legend>Postal address</legend>
          <div className="grid-2">
            {FIELDS.map((field) => (
              <TextField
                key={field.key}
                label={field.optional ? `${field.label} (optional)` : field.label}
                name={field.key}
                autoComplete={field.autoComplete}
                value={address[field.key]}
                hint={field.hint}
                // Country codes are upper-case; typing fr is taken as FR.
                onChange={(event) =>
                  setAddress((current) => ({
                    ...current,
                    [field.key]: field.key === 'country' ? event.target.value.toUpperCase() : event.target.value,
                  }))
                }
                error={fieldError(update.error, field.key)}
              />
            ))}
          </div>
        </fieldset>
        <ErrorMessage error={update.error} />
        <div className="form-actions">
          <Button type="submit" variant="primary" busy={update.isPending}>
            Save sender identity
          </Button>
        </div>
      </form>
    </Card>
  );
}
