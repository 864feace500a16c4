/**
 * No dead relative link in the repository's Markdown: for every tracked (or new, not ignored)
 * *.md file, every relative link [text](path) or [text](path#anchor), reference definition and
 * image must name a file or folder that exists, and an #anchor into a Markdown file must name one
 * of its headings as GitHub slugs them (or an explicit <a id/name> anchor).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Tracked and untracked-but-not-ignored Markdown files, outside node_modules. */
function markdownFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z', '--', '*.md'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return [...new Set(out.split('\0'))]
    .filter((file) => file && !file.split('/').includes('node_modules'))
    .filter((file) => existsSync(join(ROOT, file)))
    .sort();
}

type Link = { target: string; line: number };

/** Lines outside fenced code blocks (others blanked, so line numbers stay true). */
function proseLines(text: string): string[] {
  let fence: string | null = null;
  return text.split('\n').map((line) => {
    const opening = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (opening && opening[1]!.startsWith(fence)) fence = null;
      return '';
    }
    if (opening) {
      fence = opening[1]!;
      return '';
    }
    return line;
  });
}

/** A line without its inline code spans. */
function withoutCode(line: string): string {
  return line.replace(/(`+)(?:(?!\1).)+?\1/g, '');
}

function linksIn(text: string): Link[] {
  const links: Link[] = [];
  proseLines(text).forEach((raw, index) => {
    const line = withoutCode(raw);
    for (const match of line.matchAll(/!?\[(?:[^\][]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+["'(][^)]*)?\)/g))
      links.push({ target: match[1]!.replace(/^<|>$/g, ''), line: index + 1 });
    const definition = /^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/.exec(line);
    if (definition) links.push({ target: definition[1]!.replace(/^<|>$/g, ''), line: index + 1 });
  });
  return links;
}

/** Heading text as GitHub renders it, then slugged as GitHub does (github-slugger). */
function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images: their text
    .replace(/<[^>]+>/g, '') // HTML tags
    .replace(/`/g, '') // code spans keep their content
    .replace(/\\(.)/g, '$1') // backslash escapes
    .replace(/(\*\*|\*)(?=\S)(.*?\S)\1/g, '$2') // emphasis with asterisks
    .replace(/(^|[^\p{L}\p{N}])(__|_)(?=\S)(.*?\S)\2(?![\p{L}\p{N}])/gu, '$1$3') // with underscores, not inside words
    .trim();
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a Markdown file offers: heading slugs (duplicates numbered) and explicit ids. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const counts = new Map<string, number>();
  for (const line of proseLines(text)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (heading) {
      const base = slug(heading[1]!);
      const seen = counts.get(base) ?? 0;
      counts.set(base, seen + 1);
      anchors.add(seen === 0 ? base : `${base}-${seen}`);
    }
    for (const match of withoutCode(line).matchAll(/<a\s[^>]*(?:id|name)=["']([^"']+)["']/g)) anchors.add(match[1]!);
  }
  return anchors;
}

const files = markdownFiles();
const anchorCache = new Map<string, Set<string>>();
const anchorsFor = (file: string) => {
  let anchors = anchorCache.get(file);
  if (!anchors) anchorCache.set(file, (anchors = anchorsOf(readFileSync(file, 'utf8'))));
  return anchors;
};

t.test('the checker: GitHub slugs, links, code left out', async (t) => {
  t.equal(slug('The `mailroom` command'), 'the-mailroom-command');
  t.equal(
    slug('OAuth: token audiences, redirect URIs, error pages'),
    'oauth-token-audiences-redirect-uris-error-pages',
  );
  t.equal(slug('email_above_quota and **bold** _words_'), 'email_above_quota-and-bold-words');
  t.equal(slug('Bounces & complaints (DSN, ARF)'), 'bounces--complaints-dsn-arf');
  t.same([...anchorsOf('# A\n## A\n```\n# not a heading\n```\n<a id="x"></a>\n')], ['a', 'a-1', 'x']);
  const sample = 'See [a](a.md#b), `[not](c.md)`, ![img](i.png "t") and\n[ref]: <d e.md>\n```\n[no](f.md)\n```\n';
  t.same(linksIn(sample), [
    { target: 'a.md#b', line: 1 },
    { target: 'i.png', line: 1 },
    { target: 'd e.md', line: 2 },
  ]);
});

t.ok(files.length > 0, 'found Markdown files');
t.ok(files.includes('README.md'), 'README.md is among them');

for (const file of files) {
  t.test(file, async (t) => {
    const source = join(ROOT, file);
    const dead: string[] = [];
    let checked = 0;
    for (const { target, line } of linksIn(readFileSync(source, 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue; // https:, mailto:...
      checked++;
      const hash = target.indexOf('#');
      const pathPart = hash === -1 ? target : target.slice(0, hash);
      const anchor = hash === -1 ? null : decodeURIComponent(target.slice(hash + 1));
      let decoded: string;
      try {
        decoded = decodeURIComponent(pathPart.split('?')[0]!);
      } catch {
        dead.push(`${file}:${line}: ${target} (bad percent-encoding)`);
        continue;
      }
      const resolved =
        decoded === '' ? source : decoded.startsWith('/') ? join(ROOT, decoded) : join(dirname(source), decoded);
      const inside = relative(ROOT, normalize(resolved));
      if (inside.startsWith(`..${sep}`) || inside === '..') {
        dead.push(`${file}:${line}: ${target} (outside the repository)`);
        continue;
      }
      if (!existsSync(resolved)) {
        dead.push(`${file}:${line}: ${target} (no such file)`);
        continue;
      }
      if (
        anchor !== null &&
        statSync(resolved).isFile() &&
        resolved.endsWith('.md') &&
        !anchorsFor(resolved).has(anchor)
      )
        dead.push(`${file}:${line}: ${target} (no heading #${anchor} in ${relative(ROOT, resolved)})`);
    }
    t.same(dead, [], `${checked} relative links, none dead`);
  });
}
