import { deploymentFrom } from './deployment';
import { ConfigError } from './load-config';

const servers = {
  KAFKA_BROKERS: '127.0.0.1:9092',
  DATABASE_URL: 'postgres://postgres@127.0.0.1/shortlink',
  CLICKHOUSE_URL: 'http://127.0.0.1:8123',
};

describe('deploymentFrom', () => {
  it('runs embedded, in ./data unless DATA_DIR says otherwise, when no server is configured', () => {
    expect(deploymentFrom({})).toEqual({ mode: 'embedded', dataDir: './data' });
    expect(deploymentFrom({ DATA_DIR: '/var/lib/shortlink', DATABASE_URL: ' ' })).toEqual({
      mode: 'embedded',
      dataDir: '/var/lib/shortlink',
    });
  });

  it('runs on servers when all three are configured', () => {
    expect(deploymentFrom(servers)).toEqual({ mode: 'servers' });
  });

  it('refuses a mix, naming what is set and what is missing', () => {
    expect(() => deploymentFrom({ DATABASE_URL: servers.DATABASE_URL })).toThrow(ConfigError);
    expect(() => deploymentFrom({ DATABASE_URL: servers.DATABASE_URL })).toThrow(
      /DATABASE_URL is set but KAFKA_BROKERS and CLICKHOUSE_URL are not/,
    );
    expect(() => deploymentFrom({ ...servers, CLICKHOUSE_URL: '' })).toThrow(
      /KAFKA_BROKERS and DATABASE_URL are set but CLICKHOUSE_URL is not/,
    );
  });

  it('refuses REDIS_URL without the servers: the embedded mode counts rate limits in memory', () => {
    expect(() => deploymentFrom({ REDIS_URL: 'redis://127.0.0.1:6379' })).toThrow(/REDIS_URL is set but/);
    expect(deploymentFrom({ ...servers, REDIS_URL: 'redis://127.0.0.1:6379' })).toEqual({ mode: 'servers' });
  });
});
