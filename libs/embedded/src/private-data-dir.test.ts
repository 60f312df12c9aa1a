import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { privateDataDir } from './private-data-dir';

describe('DATA_DIR', () => {
  let parent: string;
  beforeEach(async () => {
    parent = await mkdtemp(join(tmpdir(), 'data-dir-'));
  });
  afterEach(() => rm(parent, { recursive: true, force: true }));

  const mode = async (dir: string) => (await stat(dir)).mode & 0o777;

  it('is made readable by its owner alone', async () => {
    const dir = join(parent, 'a', 'data');
    await privateDataDir(dir);
    expect((await mode(dir)).toString(8)).toBe('700');
  });

  it('is closed to others when it was made open before', async () => {
    const dir = join(parent, 'data');
    await mkdir(dir, { mode: 0o777 });
    await privateDataDir(dir);
    expect((await mode(dir)).toString(8)).toBe('700');
  });
});
