import { CONSUMER_GROUPS, TOPICS, topicSpecs } from './topics';

describe('topics', () => {
  it('keeps the link topic forever: it is the source of truth', () => {
    const links = topicSpecs({ links: 3, clicks: 6 }).find((s) => s.topic === TOPICS.links);
    const config = Object.fromEntries(links!.configEntries.map((c) => [c.name, c.value]));
    expect(config['retention.ms']).toBe('-1');
    expect(config['retention.bytes']).toBe('-1');
    expect(config['cleanup.policy']).toBe('delete');
  });

  it('has one spec per topic and distinct group names', () => {
    const specs = topicSpecs({ links: 3, clicks: 6 });
    expect(new Set(specs.map((s) => s.topic))).toEqual(new Set(Object.values(TOPICS)));
    const groups = Object.values(CONSUMER_GROUPS);
    expect(new Set(groups).size).toBe(groups.length);
  });
});
