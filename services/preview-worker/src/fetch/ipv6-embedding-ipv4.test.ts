import { isIpv6EmbeddingIpv4, lookupRefusingEmbeddedIpv4 } from './ipv6-embedding-ipv4';

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

  it('lets an ordinary name through the lookup', async () => {
    const address = await new Promise<string>((resolve, reject) =>
      lookupRefusingEmbeddedIpv4('localhost', { family: 4 }, (err, a) => (err ? reject(err) : resolve(a as string))),
    );
    expect(address).toBe('127.0.0.1');
  });
});
