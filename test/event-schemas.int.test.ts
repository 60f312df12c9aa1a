import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Consumer, IHeaders } from 'kafkajs';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { eventually } from '@shortlink/testing';
import { startLinkSystem, type LinkSystem } from './support/link-system';

/**
 * The published JSON Schemas (docs/schemas) against the bytes on the topics:
 * links created, changed, deleted and previewed, and clicks, all made by the
 * services through their API, read back by a plain kafkajs consumer as a data
 * team reads them, and each validated with ajv. A record holding a field no
 * schema names fails too: the schemas must describe everything written.
 */

const SCHEMAS_DIR = path.join(__dirname, '../docs/schemas');
const SCHEMA_OF_TYPE: Record<string, string> = {
  LinkCreated: 'link-created.v1.schema.json',
  LinkUpdated: 'link-updated.v1.schema.json',
  LinkDeleted: 'link-deleted.v1.schema.json',
  LinkPreviewFetched: 'link-preview-fetched.v1.schema.json',
  LinkPreviewFailed: 'link-preview-failed.v1.schema.json',
  ClickRecorded: 'click-recorded.v1.schema.json',
};

type Schema = Record<string, unknown>;

/** The schema with every object closed to fields it does not name (the published ones stay open to later fields). */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, closed(v)]));
  return 'properties' in out ? { ...out, additionalProperties: false } : out;
}

function validators(): { published: Map<string, ValidateFunction>; closed: Map<string, ValidateFunction> } {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  const published = new Map<string, ValidateFunction>();
  const closedOnes = new Map<string, ValidateFunction>();
  for (const file of readdirSync(SCHEMAS_DIR).filter((f) => f.endsWith('.schema.json'))) {
    const schema = JSON.parse(readFileSync(path.join(SCHEMAS_DIR, file), 'utf8')) as Schema;
    published.set(file, ajv.compile(schema));
    closedOnes.set(file, ajv.compile(closed(schema) as Schema));
  }
  return { published, closed: closedOnes };
}

function mustFit(validate: ValidateFunction, value: unknown, what: string): void {
  if (!validate(value)) throw new Error(`${what}: ${JSON.stringify(validate.errors)}`);
}

interface LinkRecordEvent {
  type: string;
  schemaVersion: number;
  eventId: string;
  data: { slug: string };
}

interface ReadRecord {
  topic: string;
  key: string | null;
  headers: Record<string, string>;
  value: Buffer;
}

const headerText = (headers: IHeaders | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries(headers ?? {}).map(([k, v]) => [k, String(v)]));

/** A destination page: `/article` is HTML with Open Graph tags, `/plain` is text, which a preview refuses. */
async function startDestination(): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.url?.startsWith('/plain')) {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('no preview here');
      return;
    }
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(
        '<!doctype html><html><head><title>A page</title><meta property="og:description" content="About it">' +
          '<meta property="og:image" content="/cover.png"></head></html>',
      );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const BROWSER =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

let system: LinkSystem;
let destination: Awaited<ReturnType<typeof startDestination>>;
let consumer: Consumer;
const records: ReadRecord[] = [];

beforeAll(async () => {
  destination = await startDestination();
  system = await startLinkSystem({ previews: { allowPrivateNetworks: true } });
  const { topics } = system.infra.names;
  consumer = system.infra.kafka.consumer({ groupId: `schema-reader-${randomUUID()}` });
  await consumer.connect();
  await consumer.subscribe({ topics: [topics.links, topics.clicks], fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ topic, message }) => {
      records.push({
        topic,
        key: message.key?.toString('utf8') ?? null,
        headers: headerText(message.headers),
        value: message.value ?? Buffer.alloc(0),
      });
    },
  });
});

afterAll(async () => {
  await consumer?.disconnect();
  await system?.close();
  await destination?.close();
});

const api = (method: 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
  system.app.inject({
    method,
    url,
    headers: {
      authorization: `Bearer ${system.proKey}`,
      ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
    },
    payload: payload === undefined ? undefined : JSON.stringify(payload),
  });

const linkEvents = () =>
  records
    .filter((r) => r.topic === system.infra.names.topics.links)
    .map((r) => ({ record: r, event: JSON.parse(r.value.toString('utf8')) as LinkRecordEvent }));
const clickLines = () =>
  records
    .filter((r) => r.topic === system.infra.names.topics.clicks)
    .flatMap((r) => r.value.toString('utf8').split('\n'))
    .filter((line) => line !== '');

async function seen(what: string, enough: () => boolean): Promise<void> {
  await eventually(async () => (enough() ? true : undefined), 60_000, what);
}

describe('events read back from Kafka fit the published JSON Schemas', () => {
  const CLICKS = 24;

  beforeAll(async () => {
    expect(
      (
        await api('POST', '/api/v1/links', {
          url: `${destination.origin}/article`,
          customSlug: 'schema-a',
          tag: 'docs',
        })
      ).statusCode,
    ).toBe(201);
    expect(
      (await api('POST', '/api/v1/links', { url: `${destination.origin}/plain`, customSlug: 'schema-b' })).statusCode,
    ).toBe(201);
    const types = () => new Set(linkEvents().map((e) => e.event.type));
    await seen('both previews', () => types().has('LinkPreviewFetched') && types().has('LinkPreviewFailed'));

    const changed = await api('PATCH', '/api/v1/links/schema-a', {
      url: `${destination.origin}/article?v2`,
      tag: null,
    });
    expect(changed.statusCode).toBe(200);
    expect((await api('DELETE', '/api/v1/links/schema-b')).statusCode).toBe(204);
    for (let i = 0; i < CLICKS; i++) {
      const res = await system.app.inject({
        method: 'GET',
        url: '/schema-a',
        headers: {
          // U+0085 arrives in a header as the byte 0x85: the clicks topic writes it escaped.
          'user-agent': i % 4 === 0 ? `${BROWSER} \u0085odd` : BROWSER,
          'x-forwarded-for': `203.0.113.${i % 5}`,
          ...(i % 3 === 0 ? { referer: 'https://news.example/item?id=1' } : {}),
        },
      });
      expect(res.statusCode).toBe(302);
    }
    await system.flushClicks();
    await seen('the change, the delete, its preview and every click', () => {
      const events = linkEvents().map((e) => e.event);
      return (
        events.some((e) => e.type === 'LinkUpdated') &&
        events.some((e) => e.type === 'LinkDeleted') &&
        events.filter((e) => e.type === 'LinkPreviewFetched').length >= 2 &&
        clickLines().length >= CLICKS
      );
    });
  });

  it('every record of the links topic fits its type schema and the topic schema, with no field they do not name', () => {
    const { published, closed } = validators();
    const events = linkEvents();
    expect(new Set(events.map((e) => e.event.type))).toEqual(
      new Set(['LinkCreated', 'LinkUpdated', 'LinkDeleted', 'LinkPreviewFetched', 'LinkPreviewFailed']),
    );
    for (const { record, event } of events) {
      // A type's later version has its own file: `link-created.v2.schema.json`.
      const file = SCHEMA_OF_TYPE[event.type]!.replace('.v1.', `.v${event.schemaVersion}.`);
      for (const validate of [
        published.get(file)!,
        closed.get(file)!,
        published.get('shortlink.links.v1.schema.json')!,
      ]) {
        mustFit(validate, event, `${event.type} does not fit ${file}`);
      }
      expect(record.headers).toMatchObject({ 'event-type': event.type, 'event-id': event.eventId });
      expect(record.key).toBe(event.data.slug);
    }
  });

  it('every line of every record of the clicks topic is a ClickRecorded that fits its schema', () => {
    const { published, closed } = validators();
    const clicks = records.filter((r) => r.topic === system.infra.names.topics.clicks);
    for (const record of clicks) {
      const text = record.value.toString('utf8');
      // One event a line, for every reader: no line break of any kind inside a line.
      expect(text).not.toMatch(/[\r\u0085\u2028\u2029]/);
      const lines = text.split('\n');
      expect(record.headers['event-type']).toBe('ClickRecorded');
      expect(record.headers['event-count']).toBe(String(lines.length));
      const events = lines.map((line) => JSON.parse(line) as { data: { linkId: string } });
      expect(record.key).toBe(events[0]!.data.linkId);
      for (const event of events) {
        for (const validate of [
          published.get('click-recorded.v1.schema.json')!,
          closed.get('click-recorded.v1.schema.json')!,
        ]) {
          mustFit(validate, event, 'a click does not fit');
        }
      }
    }
    expect(clickLines()).toHaveLength(CLICKS);
    expect(clickLines().filter((line) => line.includes('\\u0085odd'))).toHaveLength(CLICKS / 4);
  });
});
