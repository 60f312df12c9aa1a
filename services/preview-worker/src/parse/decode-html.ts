import { TextDecoder } from 'node:util';
import { Parser } from 'htmlparser2';

/** How far into the page a `<meta charset>` is looked for, as browsers do. */
const PRESCAN_BYTES = 1024;

/** Turns a page's bytes as they arrive into text, never holding more than the first `PRESCAN_BYTES` of it. */
export interface HtmlDecoder {
  /** The text of `chunk`, as far as it can be decoded yet (a character split across chunks waits for the next). */
  write(chunk: Buffer): string;
  /** The text still held: the rest of the first bytes, or the end of a split character. */
  end(): string;
}

/**
 * Turns a page's bytes into text: a byte order mark first, then the charset of
 * the Content-Type header, then a `<meta charset>` (or `http-equiv`) near the
 * top of the page, else UTF-8. Unknown labels fall back to UTF-8; bytes that do
 * not decode become U+FFFD rather than failing the preview. The page is read
 * as it comes: its first `PRESCAN_BYTES` are kept until the charset is known,
 * the rest is decoded a chunk at a time.
 */
export function createHtmlDecoder(contentType: string): HtmlDecoder {
  let head: Buffer[] = [];
  let headBytes = 0;
  let decoder: TextDecoder | undefined;

  /** The charset is known: the decoder, and the text of the first bytes. */
  const start = (): [TextDecoder, string] => {
    const first = Buffer.concat(head);
    head = [];
    decoder = decoderFor(bomCharset(first) ?? charsetParam(contentType) ?? metaCharset(first) ?? 'utf-8');
    return [decoder, decoder.decode(first, { stream: true })];
  };

  return {
    write(chunk) {
      if (decoder) return decoder.decode(chunk, { stream: true });
      head.push(chunk);
      headBytes += chunk.length;
      return headBytes < PRESCAN_BYTES ? '' : start()[1];
    },
    end() {
      if (decoder) return decoder.decode();
      const [started, text] = start();
      return text + started.decode();
    },
  };
}

/** A whole page's text (see `createHtmlDecoder`). */
export function decodeHtml(body: Buffer, contentType: string): string {
  const decoder = createHtmlDecoder(contentType);
  return decoder.write(body) + decoder.end();
}

function decoderFor(label: string): TextDecoder {
  try {
    return new TextDecoder(label);
  } catch {
    return new TextDecoder('utf-8');
  }
}

function bomCharset(body: Buffer): string | null {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'utf-8';
  if (body[0] === 0xfe && body[1] === 0xff) return 'utf-16be';
  if (body[0] === 0xff && body[1] === 0xfe) return 'utf-16le';
  return null;
}

function charsetParam(contentType: string): string | null {
  for (const param of contentType.split(';').slice(1)) {
    const [name, value] = param.split('=', 2);
    if (name?.trim().toLowerCase() === 'charset' && value) {
      const charset = value.trim().replace(/^["']|["']$/g, '');
      if (charset) return charset;
    }
  }
  return null;
}

function metaCharset(body: Buffer): string | null {
  let found: string | null = null;
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (found !== null || name !== 'meta') return;
        if (attributes.charset) found = attributes.charset.trim();
        else if (attributes['http-equiv']?.toLowerCase() === 'content-type' && attributes.content) {
          found = charsetParam(attributes.content);
        }
      },
    },
    { lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  // Latin-1 maps every byte to one character, so ASCII markup reads the same whatever the real charset.
  parser.write(body.subarray(0, PRESCAN_BYTES).toString('latin1'));
  parser.end();
  return found ? fromMeta(found) : null;
}

/**
 * A page whose `<meta>` could be read as ASCII is not UTF-16 whatever it
 * says, so the HTML standard's prescan takes a declared UTF-16 as UTF-8, and
 * `x-user-defined` as windows-1252. Decoded as UTF-16, such a page read as
 * garbage with no title.
 */
function fromMeta(label: string): string {
  const name = label.toLowerCase();
  if (/^(utf-16|utf-16le|utf-16be|unicodefffe|unicode|ucs-2|csunicode|iso-10646-ucs-2|unicodefeff)$/.test(name)) {
    return 'utf-8';
  }
  return name === 'x-user-defined' ? 'windows-1252' : label;
}
