import { CONSUMER_GROUPS, kafkaNames, TOPICS, topicSpecs } from './topics';

describe('topics', () => {
  it('keeps the link topic forever: it is the source of truth', () => {
    const links = topicSpecs(kafkaNames(), { links: 3, clicks: 6 }).find((s) => s.topic === TOPICS.links);
    const config = Object.fromEntries(links!.configEntries.map((c) => [c.name, c.value]));
    expect(config['retention.ms']).toBe('-1');
    expect(config['retention.bytes']).toBe('-1');
    expect(config['cleanup.policy']).toBe('delete');
  });

  it('has one spec per topic and distinct group names', () => {
    const specs = topicSpecs(kafkaNames(), { links: 3, clicks: 6 });
    expect(new Set(specs.map((s) => s.topic))).toEqual(new Set(Object.values(TOPICS)));
    const groups = Object.values(CONSUMER_GROUPS);
    expect(new Set(groups).size).toBe(groups.length);
  });

  it('puts every topic and group under a prefix', () => {
    const names = kafkaNames('staging.');
    expect(names.topics.links).toBe('staging.shortlink.links.v1');
    expect(names.groups.linkProjector).toBe('staging.shortlink.projector.links');
    expect(Object.values(names.topics).every((t) => t.startsWith('staging.'))).toBe(true);
  });
});
