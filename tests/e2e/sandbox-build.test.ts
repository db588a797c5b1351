// `ralph --sandbox-build` and the hint that names it, with a fake `docker` on PATH that records
// its argv and the build context it was given (the real build needs the network: see
// tests/system for the daemon's side).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../helpers/run-cli.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';
import { withFakeClaude, type FakeClaude } from '../helpers/fake-claude.js';

let project: TmpProject | undefined;
let fake: FakeClaude | undefined;
let bin: string | undefined;
afterEach(() => {
  project?.cleanup();
  fake?.cleanup();
  if (bin) rmSync(bin, { recursive: true, force: true });
});

// Answers `info`, has no image, and for `build` records the argv, the Dockerfile's first line
// and the names in the context folder.
const FAKE_DOCKER = `#!/bin/sh
log="$FAKE_DOCKER_LOG"
case "$1" in
  info) echo 27.0.0 ;;
  image) echo "Error: No such image: $3" >&2; exit 1 ;;
  build)
    printf '%s\\n' "$*" > "$log"
    for last; do :; done
    shift 3; head -n 1 "$2" >> "$log"
    ls -A "$last" | wc -l | tr -d ' ' >> "$log"
    echo "Successfully tagged" ;;
  *) exit 2 ;;
esac
`;

function setUp(): { env: Record<string, string>; log: string } {
  project = tmpProject(ralphProjectTree({}), { git: true });
  fake = withFakeClaude({});
  // Beside the project, not in it: ralph never takes a host tool from a folder the agent can write.
  bin = mkdtempSync(join(tmpdir(), 'fake-docker-'));
  writeFileSync(join(bin, 'docker'), FAKE_DOCKER, { mode: 0o755 });
  const log = join(bin, 'docker.log');
  return { env: { ...fake.env, ...GIT_TEST_ENV, PATH: [bin, fake.env.PATH].join(delimiter), FAKE_DOCKER_LOG: log }, log };
}

describe('the Docker sandbox image', () => {
  it('a run without the image names the one command that builds it', async () => {
    const { env } = setUp();
    const r = await runCli('ralph', ['--sandbox', 'docker'], { cwd: project!.dir, env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("Sandbox image 'ralph-sandbox:latest' not found");
    expect(r.stderr).toContain('  ralph --sandbox-build');
    expect(r.stderr).toContain('hint: run ralph --sandbox-build');
    expect(r.stderr).not.toContain('npm root');
  });

  it('ralph --sandbox-build builds it from the packaged Dockerfile with an empty context', async () => {
    const { env, log } = setUp();
    const r = await runCli('ralph', ['--sandbox-build'], { cwd: project!.dir, env });
    expect(r.code, r.stderr).toBe(0);
    const [argv, firstLine, contextEntries] = readFileSync(log, 'utf8').trim().split('\n');
    expect(argv).toMatch(new RegExp(`^build --tag ralph-sandbox:latest --file ${join(REPO_ROOT, 'Dockerfile').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\S+$`));
    expect(firstLine).toBe(readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8').split('\n')[0]);
    expect(contextEntries).toBe('0');
    expect(r.stdout).toContain("Sandbox image 'ralph-sandbox:latest' is ready");
  });

  it('builds under the configured image name, and a failed build exits 1 naming docker', async () => {
    const { env, log } = setUp();
    const named = await runCli('ralph', ['--sandbox', 'docker', '--sandbox-image', 'mine:dev', '--sandbox-build'], { cwd: project!.dir, env });
    expect(named.code, named.stderr).toBe(0);
    expect(readFileSync(log, 'utf8')).toMatch(/^build --tag mine:dev --file /);
    writeFileSync(join(bin!, 'docker'), '#!/bin/sh\necho "network unreachable" >&2\nexit 1\n', { mode: 0o755 });
    const failed = await runCli('ralph', ['--sandbox-build'], { cwd: project!.dir, env });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('network unreachable');
    expect(failed.stderr).toContain('Error: docker build failed (exit 1)');
  });
});
