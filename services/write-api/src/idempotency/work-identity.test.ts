import { z } from 'zod';
import { workIdentity } from './work-identity';

describe('workIdentity', () => {
  it('names the same link the same way on every attempt, and every other link apart', () => {
    const work = '6f1c1f0e-8d0b-4a51-9d49-2b9a4b8f3c11:hash-of-the-request';
    expect(workIdentity(work, 'link', 0)).toBe(workIdentity(work, 'link', 0));
    const ids = new Set([
      ...Array.from({ length: 100 }, (_, i) => workIdentity(work, 'link', i)),
      ...Array.from({ length: 100 }, (_, i) => workIdentity(work, 'event', i)),
      workIdentity(`${work}x`, 'link', 0),
    ]);
    expect(ids.size).toBe(201);
  });

  it('is a UUID the event schemas take (version 8, RFC 9562 variant)', () => {
    const id = workIdentity('w', 'event', 3);
    expect(z.uuid().parse(id)).toBe(id);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
