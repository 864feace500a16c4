/**
 * What keeps addresses out of a diagnosis prompt (spec: the model never sees recipient addresses
 * or bodies). The email's own addresses become stable placeholders (`<recipient-1>`, `<sender>`)
 * so the model can still tell recipients apart; the email's subject becomes `<subject>`; any other
 * address (a return path, one quoted in a server reply, a DMARC report address, a recipient of
 * another email named in a block-list reply) becomes `<address>`, also when URL-encoded. A
 * recipient's local part quoted alone ("user jane.doe unknown") is replaced too, when it is
 * distinctive enough not to be an ordinary word (5 characters or more, or holding a digit or
 * punctuation).
 */
const ADDRESS = /(?:"[^"\r\n]*"|[^\s<>()[\]{}"'`,;:=\\]*)@(?:\[[^\]\s]*\]|[^\s<>()[\]{}"'`,;:\\]*)/g;
const ENCODED_ADDRESS = /[^\s<>()[\]{}"'`,;:=&?/\\]*%40[^\s<>()[\]{}"'`,;:&?/\\]*/gi;

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

type Replacement = { pattern: RegExp; placeholder: string };

export class AddressRedactor {
  private readonly replacements: Replacement[] = [];
  private readonly recipients = new Map<string, string>();
  private readonly sender: string | null;

  constructor(options: { sender: string | null; recipients: string[]; subject?: string | null }) {
    this.sender = options.sender?.trim() || null;
    for (const address of options.recipients) {
      const key = address.trim().toLowerCase();
      if (key && !this.recipients.has(key)) this.recipients.set(key, `<recipient-${this.recipients.size + 1}>`);
    }
    const addresses: Array<[string, string]> = [...this.recipients.entries()];
    if (options.sender) addresses.push([options.sender.trim().toLowerCase(), '<sender>']);
    // Longest first: a.b@example.com must not be half-replaced by b@example.com.
    addresses.sort(([a], [b]) => b.length - a.length);
    for (const [address, placeholder] of addresses) {
      this.replacements.push({ pattern: new RegExp(escape(address), 'gi'), placeholder });
      this.replacements.push({ pattern: new RegExp(escape(address.replace('@', '%40')), 'gi'), placeholder });
    }
    const subject = options.subject?.trim();
    if (subject && subject.length >= 4)
      this.replacements.push({ pattern: new RegExp(escape(subject), 'gi'), placeholder: '<subject>' });
    for (const [address, placeholder] of this.recipients) {
      const local = address.slice(0, address.lastIndexOf('@'));
      if (local.length >= 5 || (local.length >= 3 && /[^a-z]/.test(local)))
        this.replacements.push({
          pattern: new RegExp(`(?<![\\w.%+-])${escape(local)}(?![\\w%+-])`, 'gi'),
          placeholder,
        });
    }
  }

  /**
   * The model's answer for the person who asked: each placeholder of the email's own addresses
   * back to the address (the team's own data; only the model must not see it).
   */
  restore(text: string): string {
    let result = text;
    for (const [address, placeholder] of this.recipients) result = result.split(placeholder).join(address);
    return this.sender ? result.split('<sender>').join(this.sender) : result;
  }

  /** The placeholder of one of the email's recipients (`<recipient-3>`), or `<address>` for another. */
  recipient(address: string): string {
    return this.recipients.get(address.trim().toLowerCase()) ?? '<address>';
  }

  redact(text: string): string;
  redact(text: string | null): string | null;
  redact(text: string | null): string | null {
    if (text === null) return null;
    let result = text;
    for (const { pattern, placeholder } of this.replacements) result = result.replace(pattern, placeholder);
    return result.replace(ADDRESS, '<address>').replace(ENCODED_ADDRESS, '<address>');
  }
}
