import { Parser } from 'htmlparser2';

export interface PreviewFields {
  title: string | null;
  description: string | null;
  image: string | null;
}

/** The event schema's limits. */
export const LIMITS = { title: 300, description: 1000, image: 2048 } as const;

const TITLE_KEYS = ['og:title', 'twitter:title'];
const DESCRIPTION_KEYS = ['og:description', 'twitter:description', 'description'];
const IMAGE_KEYS = ['og:image', 'og:image:url', 'og:image:secure_url', 'twitter:image', 'twitter:image:src'];

/**
 * Reads preview fields from a page: Open Graph first, then Twitter cards, then
 * the document's own `<title>` and `<meta name="description">`. The parser
 * decodes entities; values are whitespace-collapsed, trimmed and capped to the
 * event's limits, and the image is made absolute against the page's final URL.
 */
export function extractPreview(html: string, finalUrl: string): PreviewFields {
  const meta = new Map<string, string>();
  let documentTitle: string | null = null;
  let titleText: string | null = null;
  let svgDepth = 0;

  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (name === 'svg') svgDepth++;
        else if (name === 'title' && svgDepth === 0 && documentTitle === null) titleText = '';
        else if (name === 'meta') {
          // Open Graph specifies `property`; many sites write `name`. Accept both.
          const key = (attributes.property ?? attributes.name ?? '').trim().toLowerCase();
          const content = attributes.content;
          if (key && content !== undefined && !meta.has(key) && clean(content) !== null) meta.set(key, content);
        }
      },
      ontext(text) {
        if (titleText !== null) titleText += text;
      },
      onclosetag(name) {
        if (name === 'svg') svgDepth = Math.max(0, svgDepth - 1);
        else if (name === 'title' && titleText !== null) {
          documentTitle = titleText;
          titleText = null;
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();

  const first = (keys: string[]) => keys.map((k) => meta.get(k)).find((v) => v !== undefined) ?? null;
  return {
    title: capped(clean(first(TITLE_KEYS) ?? documentTitle ?? titleText), LIMITS.title),
    description: capped(clean(first(DESCRIPTION_KEYS)), LIMITS.description),
    image: absoluteImage(
      IMAGE_KEYS.map((k) => meta.get(k)),
      finalUrl,
    ),
  };
}

/** Collapses runs of whitespace (and drops control characters); empty is absent. */
function clean(value: string | null): string | null {
  if (value === null) return null;
  const text = value
    .replace(/\s+/g, ' ')
    .replace(/\p{Cc}/gu, '')
    .trim();
  return text === '' ? null : text;
}

/** Cuts at a code point boundary and marks the cut with an ellipsis. */
function capped(value: string | null, max: number): string | null {
  if (value === null || value.length <= max) return value;
  let end = max - 1;
  const last = value.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--; // do not split a surrogate pair
  return `${value.slice(0, end).trimEnd()}…`;
}

/** The first candidate that resolves to an http(s) URL within the length limit. */
function absoluteImage(candidates: (string | undefined)[], finalUrl: string): string | null {
  for (const candidate of candidates) {
    const raw = candidate?.trim();
    if (!raw) continue;
    let url: URL;
    try {
      url = new URL(raw, finalUrl);
    } catch {
      continue;
    }
    if ((url.protocol === 'http:' || url.protocol === 'https:') && url.href.length <= LIMITS.image) return url.href;
  }
  return null;
}
