import type { LookupFunction } from 'node:net';
import { isIpv6EmbeddingIpv4, refusingEmbeddedIpv4 } from './ipv6-embedding-ipv4';

describe('IPv6 addresses that embed an IPv4 address', () => {
  it.each([
    ['::127.0.0.1', true],
    ['[::10.0.0.1]', true],
    ['::7f00:1', true],
    ['64:ff9b:1::a00:1', true],
    ['2001:db8::1', false],
    ['2606:4700::1111', false],
    ['127.0.0.1', false],
    ['example.com', false],
  ])('%s → %s', (address, embedding) => {
    expect(isIpv6EmbeddingIpv4(address)).toBe(embedding);
  });

  /** A lookup that answers every name with these addresses. */
  const answering =
    (...addresses: string[]): LookupFunction =>
    (_hostname, options, callback) =>
      options.all
        ? callback(
            null,
            addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
          )
        : callback(null, addresses[0]!, addresses[0]!.includes(':') ? 6 : 4);
  const lookUp = (lookup: LookupFunction, all: boolean) =>
    new Promise<unknown>((resolve, reject) =>
      lookup('name.example', { all }, (err, found) => (err ? reject(err) : resolve(found))),
    );

  it('lets an ordinary answer through the lookup', async () => {
    await expect(lookUp(refusingEmbeddedIpv4(answering('93.184.216.34')), false)).resolves.toBe('93.184.216.34');
    await expect(lookUp(refusingEmbeddedIpv4(answering('93.184.216.34', '2606:2800::1')), true)).resolves.toHaveLength(
      2,
    );
  });

  it('refuses a name that resolves to an embedding address, alone or among others', async () => {
    await expect(lookUp(refusingEmbeddedIpv4(answering('::7f00:1')), false)).rejects.toThrow(/is not allowed/);
    await expect(lookUp(refusingEmbeddedIpv4(answering('93.184.216.34', '64:ff9b:1::a00:1')), true)).rejects.toThrow(
      /is not allowed/,
    );
  });
});
