import { z } from 'zod';
import { envelope } from './envelope';
import {
  clickRecorded,
  linkCreatedV1,
  linkCreatedV2,
  linkDeleted,
  linkEvent,
  linkPreviewFailed,
  linkPreviewFetched,
  linkUpdatedV1,
  linkUpdatedV2,
  redirectsFiltered,
} from './events';

/** One published JSON Schema: its file under `docs/schemas/` and the zod schema it is generated from. */
export interface PublishedSchema {
  file: string;
  title: string;
  description: string;
  schema: z.ZodType;
}

/** Every schema published for data teams: the envelope, each event type and version, and each topic's record value. */
export const PUBLISHED_SCHEMAS: readonly PublishedSchema[] = [
  {
    file: 'envelope.schema.json',
    title: 'Event envelope',
    description: 'What every event on every topic is wrapped in, whatever its type.',
    schema: envelope,
  },
  {
    file: 'link-created.v1.schema.json',
    title: 'LinkCreated v1',
    description: 'A short link came into existence (its version 1). Topic shortlink.links.v1, keyed by slug.',
    schema: linkCreatedV1,
  },
  {
    file: 'link-created.v2.schema.json',
    title: 'LinkCreated v2',
    description:
      "A short link came into existence, with its redirect rules, weighted variants and domain (null: the installation's own). Topic shortlink.links.v1, keyed by slug.",
    schema: linkCreatedV2,
  },
  {
    file: 'link-updated.v1.schema.json',
    title: 'LinkUpdated v1',
    description:
      "A link's destination and/or tag changed: its whole new state. Topic shortlink.links.v1, keyed by slug.",
    schema: linkUpdatedV1,
  },
  {
    file: 'link-updated.v2.schema.json',
    title: 'LinkUpdated v2',
    description:
      "A link's destination, tag, rules and/or variants changed: its whole new state, routing and domain included. Topic shortlink.links.v1, keyed by slug.",
    schema: linkUpdatedV2,
  },
  {
    file: 'link-deleted.v1.schema.json',
    title: 'LinkDeleted v1',
    description: 'A link was deleted; its slug is never given out again. Topic shortlink.links.v1, keyed by slug.',
    schema: linkDeleted,
  },
  {
    file: 'link-preview-fetched.v1.schema.json',
    title: 'LinkPreviewFetched v1',
    description: "The destination's preview metadata. Topic shortlink.links.v1, keyed by slug.",
    schema: linkPreviewFetched,
  },
  {
    file: 'link-preview-failed.v1.schema.json',
    title: 'LinkPreviewFailed v1',
    description: 'The preview could not be fetched, for good. Topic shortlink.links.v1, keyed by slug.',
    schema: linkPreviewFailed,
  },
  {
    file: 'click-recorded.v1.schema.json',
    title: 'ClickRecorded v1',
    description:
      'A human visit to a short link. Topic shortlink.clicks.v2: each line of a record (newline-delimited JSON) is one.',
    schema: clickRecorded,
  },
  {
    file: 'redirects-filtered.v1.schema.json',
    title: 'RedirectsFiltered v1',
    description:
      'Redirects answered but not counted (bots, HEAD, prefetches), tallied per link, day and reason, and hits on unknown slugs. Topic shortlink.redirects-filtered.v1, keyed by event id.',
    schema: redirectsFiltered,
  },
  {
    file: 'shortlink.links.v1.schema.json',
    title: 'A record value of shortlink.links.v1',
    description: 'One event of the links topic, any of its types.',
    schema: linkEvent,
  },
];

/**
 * The JSON Schema (draft 2020-12) of what a consumer accepts: zod's input side,
 * so an object is open to fields a version adds later, as the services' own
 * parsing is. A schema zod cannot express (a transform) throws here rather
 * than being published looser than the services parse.
 */
export function jsonSchemaOf({ title, description, schema }: PublishedSchema): Record<string, unknown> {
  const { $schema, ...rest } = z.toJSONSchema(schema, { io: 'input', target: 'draft-2020-12' });
  return { $schema, title, description, ...rest };
}
