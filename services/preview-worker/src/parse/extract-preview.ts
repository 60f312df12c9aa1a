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
 * Where the parser stops; past any bound, what was read so far is the preview. htmlparser2 keeps open elements with
 * `unshift`, so unclosed tags cost time quadratic in their depth on the event loop, and it holds a piece of markup (a
 * tag, a comment) whole until its end. Real pages nest a few dozen deep and open a few thousand tags. Text passes as it
 * comes and is not counted (docs/decisions/0061-a-hostile-page-costs-bounded-work.md,
 * docs/decisions/0018-preview-page-read-as-it-arrives.md).
 */
export const PARSE_LIMITS = { depth: 500, openTags: 50_000, pieceChars: 256 * 1024 } as const;

const WRITE_SLICE_CHARS = 16 * 1024;

/** Reads a page's preview fields from its text as it arrives. */
export interface PreviewExtractor {
  /** Takes the next piece of the page's text; false once parsing stopped (past PARSE_LIMITS): read no more. */
  write(text: string): boolean;
  /** The page ended (or reading it stopped): its fields. */
  end(): PreviewFields;
}

/** Only these `<meta>` are kept: a page may hold thousands of others. */
const META_KEYS = new Set([...TITLE_KEYS, ...DESCRIPTION_KEYS, ...IMAGE_KEYS]);

/**
 * The text of a `<title>` is collapsed once it outgrows this many characters,
 * and cut once collapsed it is past what its cap needs: a page's title cannot
 * hold a megabyte of the worker's memory while it is read.
 */
const TITLE_COLLAPSE_CHARS = 8 * 1024;
const TITLE_KEPT_CHARS = 2 * LIMITS.title + 2;

/**
 * Reads preview fields from a page: Open Graph first, then Twitter cards, then
 * the document's own `<title>` and `<meta name="description">`. The parser
 * decodes entities; values are whitespace-collapsed, trimmed and capped to the
 * event's limits, and the image is made absolute against the page's final URL.
 * Parsing stops past PARSE_LIMITS. What it keeps is bounded by the fields, not
 * by the page: the page's text is parsed a piece at a time and not kept.
 */
export function createPreviewExtractor(finalUrl: string): PreviewExtractor {
  const meta = new Map<string, string>();
  let documentTitle: string | null = null;
  let titleText: string | null = null;
  /** `titleText` holds all of the title that its cap can need. */
  let titleFull = false;
  let svgDepth = 0;
  let openTags = 0;
  let depth = 0;
  let stopped = false;
  /** Characters written, and where the last whole piece of markup or text ended. */
  let written = 0;
  let settled = 0;
  const settle = () => {
    settled = parser.endIndex + 1;
  };
  const stop = () => {
    stopped = true;
    parser.pause();
  };

  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (stopped) return;
        // The parser reports every element it closes, implied closes included: `depth` is its stack's.
        settle();
        if (++openTags > PARSE_LIMITS.openTags || ++depth > PARSE_LIMITS.depth) return stop();
        if (name === 'svg') svgDepth++;
        else if (name === 'title' && svgDepth === 0 && documentTitle === null) titleText = '';
        else if (name === 'meta') {
          // Open Graph specifies `property`; many sites write `name`. Accept both.
          const key = (attributes.property ?? attributes.name ?? '').trim().toLowerCase();
          const content = attributes.content;
          if (META_KEYS.has(key) && content !== undefined && !meta.has(key) && clean(content) !== null) {
            meta.set(key, content);
          }
        }
      },
      ontext(text) {
        settle();
        if (titleText === null || titleFull) return;
        titleText += text;
        if (titleText.length > TITLE_COLLAPSE_CHARS) {
          // Collapsed, the text cleans to the same; past TITLE_KEPT_CHARS, its cap's cut is in what is kept.
          titleText = collapsed(titleText);
          if (titleText.length > TITLE_KEPT_CHARS) {
            titleText = titleText.slice(0, TITLE_KEPT_CHARS);
            titleFull = true;
          }
        }
      },
      onclosetag(name) {
        settle();
        depth--;
        if (name === 'svg') svgDepth = Math.max(0, svgDepth - 1);
        else if (name === 'title' && titleText !== null) {
          documentTitle = titleText;
          titleText = null;
        }
      },
      oncommentend: settle,
      oncdataend: settle,
      onprocessinginstruction: settle,
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );

  return {
    write(text) {
      // In slices, so that a piece too long is found however the page was cut, within a slice of the bound.
      for (let at = 0; at < text.length && !stopped; at += WRITE_SLICE_CHARS) {
        const slice = text.slice(at, at + WRITE_SLICE_CHARS);
        parser.write(slice);
        written += slice.length;
        if (written - settled > PARSE_LIMITS.pieceChars) stop();
      }
      return !stopped;
    },
    end() {
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
    },
  };
}

/** The preview fields of a whole page's text (see `createPreviewExtractor`). */
export function extractPreview(html: string, finalUrl: string): PreviewFields {
  const extractor = createPreviewExtractor(finalUrl);
  extractor.write(html);
  return extractor.end();
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

/**
 * Each run of whitespace as one space, with control and invisible formatting
 * characters dropped (the whitespace around one is one run too). Collapsing
 * a text's start first changes nothing: collapsed(collapsed(a) + b) is
 * collapsed(a + b).
 */
function collapsed(value: string): string {
  return value
    .replace(/\s+/g, ' ')
    .replace(/\p{Cc}/gu, '')
    .replace(INVISIBLE, '')
    .replace(/ {2,}/g, ' ');
}

/** Collapsed and trimmed; empty is absent. */
function clean(value: string | null): string | null {
  if (value === null) return null;
  const text = collapsed(value).trim();
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
