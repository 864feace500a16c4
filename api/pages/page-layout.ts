import { escapeHtml } from '../../lib/text/escape-html.js';
import type { BrandKit } from '../../core/platform/teams/team.types.js';
import type { RouteResult } from '../route.js';

const FONT_STACKS: Record<string, string> = {
  system: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  helvetica: 'Helvetica, Arial, sans-serif',
  arial: 'Arial, Helvetica, sans-serif',
  verdana: 'Verdana, Geneva, sans-serif',
  georgia: 'Georgia, serif',
  times: '"Times New Roman", Times, serif',
  courier: '"Courier New", Courier, monospace',
};
const RADIUS: Record<string, string> = { square: '0', rounded: '6px', pill: '999px' };
const COLOR = /^#[0-9a-fA-F]{3,8}$/;

const color = (value: string | null | undefined, fallback: string) => (value && COLOR.test(value) ? value : fallback);

export type PageBrand = { name: string; brandKit: BrandKit };

/** An origin that can stand in a CSP source list as it is: scheme, DNS name or IPv4, port. */
const PLAIN_ORIGIN = /^https?:\/\/[a-z0-9.-]+(?::\d{1,5})?$/;

/**
 * The origin a team's brand-kit logo is loaded from, the one remote source a page may use (its
 * CSP names it alone); null when there is no logo, or its origin is not plain (the page then
 * shows the company name instead).
 */
export function logoOrigin(brand?: PageBrand): string | null {
  const url = brand?.brandKit.logo_url;
  if (!url || !URL.canParse(url)) return null;
  const origin = new URL(url).origin;
  return PLAIN_ORIGIN.test(origin) ? origin : null;
}

/**
 * The pages' Content-Security-Policy: no script, inline styles, images from data: URLs only (plus
 * `imageOrigin`, a team's logo on the pages in its brand), never framed, and forms that post to
 * `formAction` ('self' unless told). The pages load nothing remote.
 */
export function pageCsp(options: { formAction?: string; imageOrigin?: string | null } = {}): string {
  const images = options.imageOrigin ? `data: ${options.imageOrigin}` : 'data:';
  const formAction = options.formAction ?? "'self'";
  return `default-src 'none'; img-src ${images}; style-src 'unsafe-inline'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`;
}

/**
 * One small, script-free HTML page in the team's colours: works without JavaScript, readable
 * on a phone, labels tied to their inputs. Every value put in is escaped here or by the caller.
 */
export function page(title: string, main: string, brand?: PageBrand): string {
  const kit = brand?.brandKit;
  const primary = color(kit?.primary_color, '#1f2937');
  const accent = color(kit?.accent_color, '#2563eb');
  const font = FONT_STACKS[kit?.font ?? 'system'] ?? FONT_STACKS.system!;
  const radius = RADIUS[kit?.button_style ?? 'rounded'] ?? RADIUS.rounded!;
  const company = kit?.company_name ?? brand?.name;
  const logo =
    kit?.logo_url && logoOrigin(brand)
      ? `<img class="logo" src="${escapeHtml(kit.logo_url)}" alt="${escapeHtml(company ?? 'Logo')}">`
      : company
        ? `<p class="company">${escapeHtml(company)}</p>`
        : '';
  const footer = [kit?.footer_text, kit?.address].filter(Boolean).map((line) => `<p>${escapeHtml(line!)}</p>`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>
body { font-family: ${font}; color: #111827; background: #f9fafb; margin: 0; }
main { max-width: 32rem; margin: 2rem auto; background: #fff; padding: 1.5rem 2rem; border-radius: 8px; border: 1px solid #e5e7eb; }
h1 { font-size: 1.35rem; color: ${primary}; }
.logo { max-height: 48px; max-width: 200px; }
.company { font-weight: 600; color: ${primary}; }
fieldset { border: 0; padding: 0; margin: 1rem 0; }
legend { font-weight: 600; margin-bottom: .5rem; }
.choice { display: flex; gap: .6rem; align-items: flex-start; margin: .6rem 0; }
.choice input { margin-top: .25rem; width: 1.1rem; height: 1.1rem; }
.hint { color: #4b5563; margin: .1rem 0 0; font-size: .9rem; }
button { background: ${primary}; color: #fff; border: 0; border-radius: ${radius}; padding: .65rem 1.2rem; font: inherit; cursor: pointer; }
button:focus-visible, input:focus-visible, a:focus-visible { outline: 3px solid ${accent}; outline-offset: 2px; }
a { color: ${accent}; }
.status { background: #ecfdf5; border: 1px solid #a7f3d0; padding: .6rem .8rem; border-radius: 6px; }
footer { max-width: 32rem; margin: 0 auto 2rem; color: #6b7280; font-size: .8rem; text-align: center; }
</style>
</head>
<body>
<main>
${logo}
${main}
</main>
<footer>${footer.join('')}</footer>
</body>
</html>
`;
}

export function htmlResult(status: number, html: string, headers: Record<string, string> = {}): RouteResult {
  return { status, headers, raw: { contentType: 'text/html; charset=utf-8', bytes: Buffer.from(html) } };
}

/** A page in a team's brand: its CSP also allows images from the brand-kit logo's origin. */
export function brandedHtmlResult(status: number, html: string, brand: PageBrand): RouteResult {
  return htmlResult(status, html, { 'content-security-policy': pageCsp({ imageOrigin: logoOrigin(brand) }) });
}

/** A page with a heading and one sentence: errors and confirmations. */
export function messagePage(status: number, title: string, message: string, brand?: PageBrand): RouteResult {
  return htmlResult(status, page(title, `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(message)}</p>`, brand));
}
