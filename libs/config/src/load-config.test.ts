import { z } from 'zod';
import { ConfigError, loadConfig } from './load-config';
import { clickhouseEnv, httpEnv, kafkaEnv } from './schemas';

describe('loadConfig', () => {
  it('applies defaults for local development', () => {
    const cfg = loadConfig(kafkaEnv.extend(httpEnv.shape).extend(clickhouseEnv.shape), {});
    expect(cfg.KAFKA_BROKERS).toEqual(['127.0.0.1:9092']);
    expect(cfg.PORT).toBe(3000);
    expect(cfg.TRUST_PROXY).toBe(false);
    expect(cfg.CLICKHOUSE_URL).toBe('http://127.0.0.1:8123');
  });

  it('splits and trims a broker list', () => {
    const cfg = loadConfig(kafkaEnv, { KAFKA_BROKERS: ' a:9092, b:9093 ' });
    expect(cfg.KAFKA_BROKERS).toEqual(['a:9092', 'b:9093']);
  });

  it('names every invalid variable in one error', () => {
    const schema = kafkaEnv.extend(httpEnv.shape);
    let error: unknown;
    try {
      loadConfig(schema, { KAFKA_BROKERS: 'nohostport', PORT: 'eighty', TRUST_PROXY: 'maybe' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toMatch(/KAFKA_BROKERS/);
    expect(problems).toMatch(/PORT/);
    expect(problems).toMatch(/TRUST_PROXY/);
  });

  it('reads boolean flags the way operators write them', () => {
    const schema = z.object({ F: httpEnv.shape.TRUST_PROXY });
    expect(loadConfig(schema, { F: 'true' }).F).toBe(true);
    expect(loadConfig(schema, { F: '1' }).F).toBe(true);
    expect(loadConfig(schema, { F: 'false' }).F).toBe(false);
  });

  it('reads CORS_ORIGINS as a list of origins, or * alone; none by default', () => {
    const schema = z.object({ CORS_ORIGINS: httpEnv.shape.CORS_ORIGINS });
    expect(loadConfig(schema, {}).CORS_ORIGINS).toEqual([]);
    expect(loadConfig(schema, { CORS_ORIGINS: '' }).CORS_ORIGINS).toEqual([]);
    expect(
      loadConfig(schema, { CORS_ORIGINS: ' https://app.example.com, http://localhost:5173 ' }).CORS_ORIGINS,
    ).toEqual(['https://app.example.com', 'http://localhost:5173']);
    expect(loadConfig(schema, { CORS_ORIGINS: '*' }).CORS_ORIGINS).toEqual(['*']);
    for (const bad of ['app.example.com', 'https://app.example.com/', '*,https://a.example', 'ftp://a.example']) {
      expect(() => loadConfig(schema, { CORS_ORIGINS: bad })).toThrow(ConfigError);
    }
  });
});
