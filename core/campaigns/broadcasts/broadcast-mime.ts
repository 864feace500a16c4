import { composeMime, type ComposeInput } from '../../sending/emails/mime.js';
import { MimeTemplate, shapeOf } from '../../sending/emails/mime-template.js';

/** Shapes kept per broadcast: the usual one, and e.g. the one where a merged subject comes out empty. */
const MAX_SHAPES = 4;

/**
 * The MIME of one broadcast's emails (fan-out): each message is rendered on a template composed
 * once for the broadcast (mime-template.ts: the same bytes as a full composition), one template
 * per shape of message; a message no template covers is composed fully, and counted.
 */
export class BroadcastMime {
  private readonly templates = new Map<string, MimeTemplate | null>();
  /** Messages rendered on a template, and composed fully. */
  readonly counts = { template: 0, full: 0 };

  readonly compose = async (input: ComposeInput): Promise<Buffer> => {
    const shape = shapeOf(input);
    let template = this.templates.get(shape);
    if (template === undefined && this.templates.size < MAX_SHAPES) {
      template = MimeTemplate.of(input);
      this.templates.set(shape, template);
    }
    const mime = template ? template.render(input, shape) : null;
    if (mime) {
      this.counts.template++;
      return mime;
    }
    this.counts.full++;
    return composeMime(input);
  };
}
