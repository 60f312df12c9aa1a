/**
 * Every topic and consumer group the system uses, in one place. Renaming one is
 * a migration (consumers lose their committed offsets), hence the `.v1` suffix.
 */
export const TOPICS = {
  /** Link lifecycle events, keyed by slug. The source of truth: never expires. */
  links: 'shortlink.links.v1',
  /** ClickRecorded events, keyed by link id. */
  clicks: 'shortlink.clicks.v1',
  /** Messages a consumer could not process, with the reason in headers. */
  deadLetter: 'shortlink.dead-letter.v1',
} as const;
export type TopicName = (typeof TOPICS)[keyof typeof TOPICS];

export const CONSUMER_GROUPS = {
  linkProjector: 'shortlink.projector.links',
  clickProjector: 'shortlink.projector.clicks',
  previewWorker: 'shortlink.preview-worker',
} as const;

export interface TopicSpec {
  topic: TopicName;
  numPartitions: number;
  configEntries: { name: string; value: string }[];
}

const INFINITE = '-1';
const WEEK_MS = String(7 * 24 * 60 * 60 * 1000);

/** Partition counts are sized for a single node; production overrides them. */
export function topicSpecs(partitions: { links: number; clicks: number }): TopicSpec[] {
  return [
    {
      topic: TOPICS.links,
      numPartitions: partitions.links,
      configEntries: [
        { name: 'cleanup.policy', value: 'delete' },
        { name: 'retention.ms', value: INFINITE },
        { name: 'retention.bytes', value: INFINITE },
      ],
    },
    {
      topic: TOPICS.clicks,
      numPartitions: partitions.clicks,
      configEntries: [{ name: 'retention.ms', value: WEEK_MS }],
    },
    {
      topic: TOPICS.deadLetter,
      numPartitions: 1,
      configEntries: [{ name: 'retention.ms', value: INFINITE }],
    },
  ];
}
