import fc from 'fast-check';
import { decodeCursor, encodeCursor } from './list-cursor';

const LINK_ID = '0b6f7c1e-2d3a-4b5c-8d9e-0f1a2b3c4d5e';

describe('the list cursor', () => {
  it('names the link it was made from, in an opaque URL-safe form', () => {
    const cursor = encodeCursor(LINK_ID);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]{23}$/);
    expect(cursor).not.toContain(LINK_ID.slice(0, 8));
    expect(decodeCursor(cursor)).toBe(LINK_ID);
  });

  it('round-trips every link id', () => {
    fc.assert(fc.property(fc.uuid(), (id) => decodeCursor(encodeCursor(id)) === id));
  });

  it.each([
    ['empty', ''],
    ['the bare link id', LINK_ID],
    ['one character short', encodeCursor(LINK_ID).slice(0, -1)],
    ['one character long', `${encodeCursor(LINK_ID)}A`],
    ['padded', `${encodeCursor(LINK_ID)}=`],
    ['standard base64', encodeCursor(LINK_ID).replaceAll('_', '/').replaceAll('-', '+') + '+'],
    ['another version', Buffer.concat([Buffer.from([2]), Buffer.alloc(16)]).toString('base64url')],
    ['a number', '12345'],
    ['a NUL', '\u0000'.repeat(23)],
    ['a huge string', 'A'.repeat(100_000)],
  ])('refuses %s', (_name, cursor) => {
    expect(decodeCursor(cursor)).toBeNull();
  });

  it('refuses a non-canonical spelling of a valid cursor (last character with stray bits)', () => {
    const cursor = encodeCursor(LINK_ID);
    const last = cursor.at(-1) as string;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const stray = alphabet[(alphabet.indexOf(last) + 1) % 64] as string;
    expect(decodeCursor(cursor.slice(0, -1) + stray)).toBeNull();
  });

  it('answers any string without throwing: a valid cursor or null', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (s) => {
        const id = decodeCursor(s);
        return id === null || encodeCursor(id) === s;
      }),
    );
  });
});
