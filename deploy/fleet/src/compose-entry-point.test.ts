import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMPOSE_ENTRY_POINT, composeEntryPoint } from './compose-entry-point';

const ROOT = join(__dirname, '..', '..', '..');

describe("docker compose's entry point", () => {
  it('is the local fleet’s configuration, rendered for Docker (regenerate with npm run fleet:compose-config)', () => {
    expect(readFileSync(join(ROOT, COMPOSE_ENTRY_POINT), 'utf8')).toBe(composeEntryPoint(ROOT));
  });
});
