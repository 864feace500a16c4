import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { Button } from '../../ui/button';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { Checkbox, TextField } from '../../ui/field';
import { Card } from '../../ui/page';
import { useToast } from '../../ui/toast';
import type { ContactProperty } from '../properties/property-types';
import type { Contact } from './contact-types';
import { changedProperties, draftsOf, PropertyInputs } from './property-inputs';

/**
 * The contact's own fields and its property values, edited together and saved with one PATCH
 * (properties merged key by key by the API, so only what changed is sent).
 */
export function ContactDetailsCard({ contact, declared }: { contact: Contact; declared: ContactProperty[] }) {
  const client = useQueryClient();
  const toast = useToast();
  const initial = useMemo(() => draftsOf(contact.properties, declared), [contact, declared]);
  const [email, setEmail] = useState(contact.email);
  const [firstName, setFirstName] = useState(contact.first_name ?? '');
  const [lastName, setLastName] = useState(contact.last_name ?? '');
  const [unsubscribed, setUnsubscribed] = useState(contact.unsubscribed);
  const [drafts, setDrafts] = useState(initial);
  // A fresh copy from the API (after saving) resets the form to it.
  useEffect(() => {
    setEmail(contact.email);
    setFirstName(contact.first_name ?? '');
    setLastName(contact.last_name ?? '');
    setUnsubscribed(contact.unsubscribed);
    setDrafts(initial);
  }, [contact, initial]);
  const save = useMutation({
    mutationFn: () => {
      const body: Record<string, unknown> = {};
      if (email.trim() !== contact.email) body.email = email.trim();
      if (firstName.trim() !== (contact.first_name ?? '')) body.first_name = firstName.trim() || null;
      if (lastName.trim() !== (contact.last_name ?? '')) body.last_name = lastName.trim() || null;
      if (unsubscribed !== contact.unsubscribed) body.unsubscribed = unsubscribed;
      const properties = changedProperties(drafts, initial, declared);
      if (Object.keys(properties).length > 0) body.properties = properties;
      return api.patch(`/contacts/${contact.id}`, body);
    },
    onSuccess: async () => {
      toast('Contact saved');
      await client.invalidateQueries({ queryKey: ['/contacts'] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <Card title="Details and properties" id="contact-details">
      <form className="stack" aria-label="Contact details" onSubmit={submit}>
        <TextField
          label="Email address"
          type="email"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          error={fieldError(save.error, 'email')}
        />
        <div className="grid-2">
          <TextField
            label="First name"
            value={firstName}
            maxLength={200}
            onChange={(e) => setFirstName(e.target.value)}
            error={fieldError(save.error, 'first_name')}
          />
          <TextField
            label="Last name"
            value={lastName}
            maxLength={200}
            onChange={(e) => setLastName(e.target.value)}
            error={fieldError(save.error, 'last_name')}
          />
        </div>
        <Checkbox
          label="Unsubscribed from all marketing email"
          checked={unsubscribed}
          onChange={(e) => setUnsubscribed(e.target.checked)}
          hint="A global opt-out: no broadcast reaches the contact whatever their topics say. Every change is kept in the consent history."
        />
        {contact.unsubscribed && !unsubscribed ? (
          // Consent: resubscribing someone who opted out is the team's responsibility; say so.
          <p className="alert alert-warn">
            Saving resubscribes this contact to marketing email. Do it only if they asked for it: the change is recorded
            in the consent history.
          </p>
        ) : null}
        <h3>Properties</h3>
        <PropertyInputs
          declared={declared}
          drafts={drafts}
          onChange={(key, text) => setDrafts((all) => ({ ...all, [key]: text }))}
          errorFor={(key) => fieldError(save.error, key)}
        />
        <ErrorMessage error={save.error} />
        <div className="row">
          <Button type="submit" variant="primary" busy={save.isPending}>
            Save contact
          </Button>
        </div>
      </form>
    </Card>
  );
}
