import { randomUUID } from 'node:crypto';
import { uuidText } from './uuid-text';

describe('uuidText', () => {
  it('writes 16 bytes back as the UUID they came from', () => {
    for (let i = 0; i < 100; i++) {
      const id = randomUUID();
      expect(uuidText(Buffer.from(id.replaceAll('-', ''), 'hex'))).toBe(id);
    }
  });

  it('reads the 16 bytes of a view into a larger buffer', () => {
    const buffer = Buffer.alloc(20, 0xff);
    buffer.fill(0, 2, 18);
    expect(uuidText(buffer.subarray(2, 18))).toBe('00000000-0000-0000-0000-000000000000');
  });
});
