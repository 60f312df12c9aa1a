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
 * Where the parser stops. htmlparser2 keeps its stack of open elements with
 * `unshift`, so tags that never close cost time quadratic in their depth, on
 * the worker's event loop: 1 KB of gzip (`<b>` 350,000 times) held it for 30 s
 * (issue 18's audit). Real pages nest a few dozen deep and open a few
 * thousand tags; past either bound, what was read so far is the preview.
 */
export const PARSE_LIMITS = { depth: 500, openTags: 50_000 } as const;

/**
 * Reads preview fields from a page: Open Graph first, then Twitter cards, then
 * the document's own `<title>` and `<meta name="description">`. The parser
 * decodes entities; values are whitespace-collapsed, trimmed and capped to the
 * event's limits, and the image is made absolute against the page's final URL.
 * Parsing stops past PARSE_LIMITS.
 */
export function extractPreview(html: string, finalUrl: string): PreviewFields {
  const meta = new Map<string, string>();
  let documentTitle: string | null = null;
  let titleText: string | null = null;
  let svgDepth = 0;
  let openTags = 0;
  let depth = 0;
  let stopped = false;

  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (stopped) return;
        // The parser reports every element it closes, implied closes included: `depth` is its stack's.
        if (++openTags > PARSE_LIMITS.openTags || ++depth > PARSE_LIMITS.depth) {
          stopped = true;
          parser.pause();
          return;
        }
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
        depth--;
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
  if (!stopped) parser.end();

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

/**
 * Characters that change how text around them is shown without being seen:
 * bidirectional overrides, embeddings, isolates and marks (a title of
 * `\u202Egnp.exe` reads `exe.png`), zero-width spaces, word joiners and
 * byte order marks. Zero-width joiners stay: emoji and many scripts need them.
 */
// Bidi marks, overrides and isolates, zero-width spaces and joiners' look-alikes, byte order marks; the
// soft hyphen, the Mongolian vowel separator, interlinear annotation marks, and the Hangul fillers that
// make a "blank" title. Not the zero-width joiner (U+200D), which emoji sequences need.
const INVISIBLE =
  /[\u00ad\u061c\u115f\u1160\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\u3164\ufeff\uffa0\ufff9-\ufffb]/g;

/** Collapses runs of whitespace (and drops control and invisible formatting characters); empty is absent. */
function clean(value: string | null): string | null {
  if (value === null) return null;
  const text = value
    .replace(/\s+/g, ' ')
    .replace(/\p{Cc}/gu, '')
    .replace(INVISIBLE, '')
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
    // Credentials in an image's URL would be handed to every client that shows it, as with a destination.
    const plain = url.username === '' && url.password === '';
    if ((url.protocol === 'http:' || url.protocol === 'https:') && plain && url.href.length <= LIMITS.image) {
      return url.href;
    }
  }
  return null;
}
