import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { signMessage } from './sign-message';

const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;
const payload = JSON.stringify({ type: 'link.created', timestamp: '2026-12-01T10:00:00.000Z', data: { slug: 'a-b' } });

describe('signing a message', () => {
  it('given one secret, a receiver with the standardwebhooks library verifies it', () => {
    const secret = newSecret();
    const headers = signMessage([secret], 'msg_1', payload, new Date());
    expect(headers['webhook-id']).toBe('msg_1');
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(payload, { ...headers })).toEqual(JSON.parse(payload));
  });

  it('given two secrets during a rotation, a receiver holding either verifies it, and another secret does not', () => {
    const [old, current] = [newSecret(), newSecret()];
    const headers = signMessage([current, old], 'msg_2', payload, new Date());
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(() => new Webhook(old).verify(payload, { ...headers })).not.toThrow();
    expect(() => new Webhook(current).verify(payload, { ...headers })).not.toThrow();
    expect(() => new Webhook(newSecret()).verify(payload, { ...headers })).toThrow(/No matching signature/);
  });

  it('signs the exact body, id and time: a changed byte, another id or a stale timestamp is refused', () => {
    const secret = newSecret();
    const headers = signMessage([secret], 'msg_3', payload, new Date());
    const receiver = new Webhook(secret);
    expect(() => receiver.verify(payload.replace('a-b', 'a-c'), { ...headers })).toThrow();
    expect(() => receiver.verify(payload, { ...headers, 'webhook-id': 'msg_4' })).toThrow();
    const tenMinutesAgo = new Date(Date.now() - 10 * 60_000);
    const stale = signMessage([secret], 'msg_3', payload, tenMinutesAgo);
    expect(stale['webhook-timestamp']).toBe(String(Math.floor(tenMinutesAgo.getTime() / 1000)));
    expect(() => receiver.verify(payload, { ...stale })).toThrow(/too old/);
  });

  it('signs byte for byte as the standardwebhooks library does, whatever the payload holds', () => {
    const secret = newSecret();
    const at = new Date('2026-12-06T05:00:00.123Z');
    const odd = JSON.stringify({ data: { slug: 'zürich', ua: '中文 🙂 \\ "q"', lone: '\ud800' } });
    for (const body of [payload, odd, 'x'.repeat(70_000)]) {
      expect(signMessage([secret], 'msg_clicks_1', body, at)['webhook-signature']).toBe(
        new Webhook(secret).sign('msg_clicks_1', at, body),
      );
    }
  });

  it('refuses to sign with no secret, or a secret that is not base64', () => {
    expect(() => signMessage([], 'msg_5', payload, new Date())).toThrow();
    expect(() => signMessage(['whsec_'], 'msg_5', payload, new Date())).toThrow();
    expect(() => signMessage(['whsec_not base64!'], 'msg_5', payload, new Date())).toThrow();
  });
});
