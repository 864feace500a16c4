/** Which kind of email a share link points at: one the team sent, or one it received. */
export type ShareSource = 'sent' | 'received';

export type EmailShareLink = {
  id: string;
  teamId: string;
  emailId: string;
  source: ShareSource;
  createdAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
};

/** What the share page shows: the email as sent (or received), read-only. */
export type SharedEmail = {
  teamId: string;
  from: string;
  to: string[];
  cc: string[];
  subject: string;
  date: Date;
  html: string | null;
  text: string | null;
  attachmentNames: string[];
};

/** Finds one email of a team as the share page shows it; undefined when the team has no such email. */
export type SharedEmailLoader = (teamId: string, emailId: string) => Promise<SharedEmail | undefined>;
