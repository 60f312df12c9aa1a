import { filteredSummary } from './filtered-summary';

describe('the filtered object of a link’s analytics', () => {
  it('lists every reason, most first, and the crawlers by family', () => {
    const summary = filteredSummary([
      { reason: 'crawler', family: 'googlebot', count: 3 },
      { reason: 'crawler', family: 'slackbot', count: 5 },
      { reason: 'crawler', family: 'googlebot', count: 2 },
      { reason: 'head', family: '', count: 4 },
      { reason: 'no_user_agent', family: '', count: 1 },
    ]);
    expect(summary).toEqual({
      total: 15,
      reasons: [
        { name: 'crawler', count: 10 },
        { name: 'head', count: 4 },
        { name: 'no_user_agent', count: 1 },
        { name: 'http_library', count: 0 },
        { name: 'prefetch', count: 0 },
      ],
      crawlers: [
        { name: 'googlebot', count: 5 },
        { name: 'slackbot', count: 5 },
      ],
    });
  });

  it('answers zeros for a link nothing was filtered from', () => {
    const summary = filteredSummary([]);
    expect(summary.total).toBe(0);
    expect(summary.reasons.map((r) => r.count)).toEqual([0, 0, 0, 0, 0]);
    expect(summary.crawlers).toEqual([]);
  });

  it('passes only the names of its fixed lists, whatever a row says', () => {
    const summary = filteredSummary([
      { reason: '<script>', family: '', count: 9 },
      { reason: 'crawler', family: 'Evil/1.0 <b>', count: 2 },
    ]);
    expect(summary.total).toBe(2);
    expect(summary.crawlers).toEqual([{ name: 'other', count: 2 }]);
    expect(JSON.stringify(summary)).not.toMatch(/script|Evil/);
  });
});
