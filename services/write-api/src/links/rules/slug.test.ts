import { RESERVED_SLUGS } from './reserved-slugs';
import { CUSTOM_SLUG, generateSlug, type RandomInt } from './slug';

/** A random source that replays fixed draws. */
function scripted(draws: number[]): RandomInt {
  let i = 0;
  return () => {
    const next = draws[i++];
    if (next === undefined) throw new Error('ran out of draws');
    return next;
  };
}

const index = (ch: string) => 'abcdefghijklmnopqrstuvwxyz0123456789'.indexOf(ch);

describe('generateSlug', () => {
  it('draws five characters of [a-z0-9] with at least one digit', () => {
    for (let i = 0; i < 2000; i++) {
      const slug = generateSlug();
      expect(slug).toMatch(/^[a-z0-9]{5}$/);
      expect(slug).toMatch(/[0-9]/);
      expect(RESERVED_SLUGS.has(slug)).toBe(false);
    }
  });

  it('throws away a draw without a digit and draws again', () => {
    const draws = [...'hello'].map(index).concat([...'h3llo'].map(index));
    expect(generateSlug(scripted(draws))).toBe('h3llo');
  });

  it('is a valid custom slug too, so generated and custom slugs share one namespace', () => {
    expect(CUSTOM_SLUG.test(generateSlug())).toBe(true);
  });

  it('spreads draws over the alphabet', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 500; i++) for (const ch of generateSlug()) seen.add(ch);
    expect(seen.size).toBe(36);
  });
});

describe('reserved slugs', () => {
  it('include every top-level path the service serves and the spec examples', () => {
    for (const slug of ['api', 'admin', 'dashboard', 'docs', 'healthz', 'metrics', 'favicon.ico', 'robots.txt']) {
      expect(RESERVED_SLUGS.has(slug)).toBe(true);
    }
  });
});
