import { loadConfig } from '@shortlink/config';
import { withLocalBaseUrl } from './local-base-url';
import { systemConfig } from './system-config';

const baseUrl = (env: Record<string, string>) =>
  loadConfig(systemConfig, withLocalBaseUrl({ VISITOR_HASH_SECRET: 'a-visitor-secret-for-this-test', ...env }))
    .PUBLIC_BASE_URL;

describe('the base of short URLs under npm start', () => {
  it('is the process itself on localhost when PORT is set and PUBLIC_BASE_URL is not', () => {
    expect(baseUrl({ PORT: '3100' })).toBe('http://localhost:3100');
  });

  it('is port 3000 when neither is set, as PORT is', () => {
    expect(baseUrl({})).toBe('http://localhost:3000');
  });

  it('drops the scheme default port', () => {
    expect(baseUrl({ PORT: '80' })).toBe('http://localhost');
  });

  it('is PUBLIC_BASE_URL whenever it is set', () => {
    expect(baseUrl({ PORT: '3100', PUBLIC_BASE_URL: 'https://sho.rt/' })).toBe('https://sho.rt');
  });

  it('leaves a PORT it cannot use to the schema, which refuses it, and port 0 to the shared default', () => {
    expect(() => baseUrl({ PORT: 'abc' })).toThrow(/PORT/);
    expect(() => baseUrl({ PORT: '70000' })).toThrow(/PORT/);
    expect(baseUrl({ PORT: '0' })).toBe('http://localhost:3000');
  });
});
