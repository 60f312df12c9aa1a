import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { createEvent } from './codec';
import { linkCreated, linkEvent, type LinkCreated } from './events';
import { staleSchemaFiles } from './json-schema-files';
import { jsonSchemaOf, PUBLISHED_SCHEMAS } from './json-schemas';

const SCHEMAS_DIR = path.join(__dirname, '../../../docs/schemas');
const EVENTS_DOC = path.join(__dirname, '../../../docs/events.md');

/** The published files, compiled as a data team would compile them. */
function publishedValidator(file: string) {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  return ajv.compile(JSON.parse(readFileSync(path.join(SCHEMAS_DIR, file), 'utf8')) as object);
}

const created = createEvent<LinkCreated>(
  'LinkCreated',
  1,
  {
    linkId: '0e6f1a52-7d0c-4b8e-a3a5-2f9b7c1d4e60',
    accountId: '9c3b2a10-1d2e-4f5a-8b6c-7d8e9f0a1b2c',
    slug: 'launch-26',
    destinationUrl: 'https://example.com/a?b=c',
    tag: null,
  },
  { eventId: '5b0d3c1e-8f4a-4c55-9d56-1e2f3a4b5c6d', occurredAt: '2026-11-22T10:00:00.123Z' },
);

describe('the published JSON Schemas (docs/schemas)', () => {
  it('are what the zod schemas generate: after changing an event schema, run `npm run schemas`', async () => {
    const stale = await staleSchemaFiles(SCHEMAS_DIR);
    if (stale.length > 0) {
      throw new Error(`docs/schemas differs from the zod schemas in ${stale.join(', ')}: run npm run schemas`);
    }
  });

  it('are each valid JSON Schema 2020-12, strictly', () => {
    for (const { file } of PUBLISHED_SCHEMAS) expect(() => publishedValidator(file)).not.toThrow();
  });

  it('accept what the services accept and refuse what they refuse, free text included', () => {
    const validate = publishedValidator('link-created.v1.schema.json');
    const topic = publishedValidator('shortlink.links.v1.schema.json');
    const withDestination = (destinationUrl: string) => ({ ...created, data: { ...created.data, destinationUrl } });
    fc.assert(
      fc.property(fc.string({ unit: 'binary', minLength: 1 }), (destinationUrl) => {
        const event = withDestination(destinationUrl);
        const accepted = linkCreated.safeParse(event).success;
        expect(validate(event)).toBe(accepted);
        expect(topic(event)).toBe(linkEvent.safeParse(event).success);
      }),
    );
    for (const text of ['a\u0000b', 'half \ud83d', '\ude00 half', 'whole \ud83d\ude00']) {
      expect(validate(withDestination(text))).toBe(linkCreated.safeParse(withDestination(text)).success);
    }
    expect(validate(withDestination('whole \ud83d\ude00'))).toBe(true);
    expect(validate({ ...created, occurredAt: '2026-11-22 10:00:00.123Z' })).toBe(false);
    expect(validate({ ...created, data: { ...created.data, slug: 'No Caps' } })).toBe(false);
    // Open to a field a later release adds, as the services' parsing is.
    expect(validate({ ...created, data: { ...created.data, addedLater: 1 } })).toBe(true);
  });
});

describe('docs/events.md', () => {
  const doc = readFileSync(EVENTS_DOC, 'utf8');
  /** The backticked names in the first column of the table of the section under `heading`. */
  const fieldsUnder = (heading: string): string[] => {
    const start = doc.indexOf(`\n${heading}\n`);
    if (start < 0) throw new Error(`docs/events.md has no heading ${heading}`);
    const section = doc.slice(start + heading.length + 2).split(/\n#{1,3} /)[0]!;
    return [...section.matchAll(/^\| `(\w+)` +\|/gm)].map((m) => m[1]!);
  };
  const propertiesOf = (schema: unknown): string[] => Object.keys((schema as { properties: object }).properties);

  it('lists every field of the envelope, and no other', () => {
    const envelope = PUBLISHED_SCHEMAS.find((p) => p.file === 'envelope.schema.json')!;
    expect(fieldsUnder('## The envelope')).toEqual(propertiesOf(jsonSchemaOf(envelope)));
  });

  const events = PUBLISHED_SCHEMAS.filter((p) => / v\d+$/.test(p.title));
  // A type's version 1 is under `### \`Type\``, a later version under `### \`Type\` vN`.
  const headingOf = (title: string) =>
    title.replace(/^(\w+) v(\d+)$/, (_, type, v) => (v === '1' ? `\`${type}\`` : `\`${type}\` v${v}`));
  it.each(events.map((p) => [p.title, p] as const))('lists every field of %s, and no other', (title, p) => {
    const { data } = (jsonSchemaOf(p) as { properties: { data: unknown } }).properties;
    expect(fieldsUnder(`### ${headingOf(title)}`)).toEqual(propertiesOf(data));
    expect(doc).toContain(`](schemas/${p.file})`);
  });
});
