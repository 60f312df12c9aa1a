/**
 * Every topic and consumer group the system uses, in one place. Renaming one is
 * a migration (consumers lose their committed offsets), hence the `.v1` suffix.
 */
export const TOPICS = {
  /** Link lifecycle events, keyed by slug. The source of truth: never expires. */
  links: 'shortlink.links.v1',
  /**
   * ClickRecorded events, several to a record (one JSON envelope a line), each
   * record keyed by the link id of its first click; every click of a link is
   * in that link's partition. v1 held one click a record; see docs/kafka-topics.md.
   */
  clicks: 'shortlink.clicks.v2',
  /**
   * RedirectsFiltered events: each redirector's tally of redirects answered but
   * not counted (bots, HEAD, prefetches) and of unknown slugs, every few seconds.
   */
  redirectsFiltered: 'shortlink.redirects-filtered.v1',
  /** Messages a consumer could not process, with the reason in headers. */
  deadLetter: 'shortlink.dead-letter.v1',
} as const;

export const CONSUMER_GROUPS = {
  linkProjector: 'shortlink.projector.links',
  clickProjector: 'shortlink.projector.clicks',
  filteredProjector: 'shortlink.projector.redirects-filtered',
  /** Each link's tag into ClickHouse (link_tags), beside the click projection that owns that schema. */
  linkTagsProjector: 'shortlink.projector.link-tags',
  previewWorker: 'shortlink.preview-worker',
  webhookDispatcher: 'shortlink.webhook-dispatcher',
} as const;

/** The names a process uses: the constants above, optionally under a prefix. */
export interface KafkaNames {
  topics: { [K in keyof typeof TOPICS]: string };
  groups: { [K in keyof typeof CONSUMER_GROUPS]: string };
}

/**
 * Names under a prefix (`KAFKA_TOPIC_PREFIX`), so several environments, or
 * parallel test files, can share one cluster without seeing each other.
 */
export function kafkaNames(prefix = ''): KafkaNames {
  const withPrefix = <T extends Record<string, string>>(names: T) =>
    Object.fromEntries(Object.entries(names).map(([k, v]) => [k, `${prefix}${v}`])) as { [K in keyof T]: string };
  return { topics: withPrefix(TOPICS), groups: withPrefix(CONSUMER_GROUPS) };
}

export interface TopicSpec {
  topic: string;
  numPartitions: number;
  configEntries: { name: string; value: string }[];
}

const INFINITE = '-1';
const WEEK_MS = String(7 * 24 * 60 * 60 * 1000);

/** Partition counts are sized for a single node; production overrides them. */
export function topicSpecs(names: KafkaNames, partitions: { links: number; clicks: number }): TopicSpec[] {
  return [
    {
      topic: names.topics.links,
      numPartitions: partitions.links,
      configEntries: [
        { name: 'cleanup.policy', value: 'delete' },
        { name: 'retention.ms', value: INFINITE },
        { name: 'retention.bytes', value: INFINITE },
      ],
    },
    {
      topic: names.topics.clicks,
      numPartitions: partitions.clicks,
      configEntries: [{ name: 'retention.ms', value: WEEK_MS }],
    },
    {
      // A few records a minute per redirector: one partition keeps them in one consumer's hands.
      topic: names.topics.redirectsFiltered,
      numPartitions: 1,
      configEntries: [{ name: 'retention.ms', value: WEEK_MS }],
    },
    {
      topic: names.topics.deadLetter,
      numPartitions: 1,
      configEntries: [{ name: 'retention.ms', value: INFINITE }],
    },
  ];
}
