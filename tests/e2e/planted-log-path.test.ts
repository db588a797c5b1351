// The agent can write .ralph/logs/ and can tell the name of its call's stderr transcript (the
// stamp of the output log it sees there). A folder it plants at that name, before it prints to
// stderr, costs the transcript only: ralph warns, keeps reading the call, and runs on.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildStream, FAULT_RC } from '../fault/fast-agent.js';
import { useCleanups } from '../helpers/cleanups.js';
import { runCli } from '../helpers/run-cli.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject } from '../helpers/tmp-project.js';

const cleanups = useCleanups();

const PLANTING_AGENT = `#!/bin/sh
if [ "$1" = "--version" ]; then echo "2.1.332 (Claude Code)"; exit 0; fi
cat > /dev/null
out=$(ls .ralph/logs | grep '^claude_output_' | sort | tail -n 1)
mkdir -p ".ralph/logs/$(echo "$out" | sed 's/^claude_output_/claude_stderr_/')"
echo "one more step" >> progress.txt
echo "a warning the CLI printed" >&2
cat "$PLANTED_STREAM"
`;

describe('a folder planted at the call stderr transcript', () => {
  it('is warned of and skipped; the loop reads the call and runs on', async () => {
    const p = tmpProject(ralphProjectTree({ '.ralphrc': FAULT_RC, '.ralph/fix_plan.md': '# Fix Plan\n- [ ] keep going\n' }), { git: true });
    cleanups.push(() => p.cleanup());
    const root = mkdtempSync(join(tmpdir(), 'ralph-planting-agent-'));
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    const bin = join(root, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'claude'), PLANTING_AGENT);
    chmodSync(join(bin, 'claude'), 0o755);
    const stream = join(bin, 'stream.jsonl');
    writeFileSync(stream, buildStream());
    const env = { ...GIT_TEST_ENV, PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: join(root, 'home'), PLANTED_STREAM: stream };

    const r = await runCli('ralph', ['--max-loops', '2'], { cwd: p.dir, env });
    const said = r.stdout + r.stderr;
    expect(said).not.toMatch(/internal error|\n\s+at /i);
    expect(said).toMatch(/claude_stderr_\S+\.log could not be opened \(EISDIR\)/);
    // Both loops ran to their end: the run stopped at its loop limit, not in the first call.
    expect(said).toContain('Loop #2');
    const status = JSON.parse(readFileSync(p.path('.ralph/status.json'), 'utf8')) as { status: string; loops_run: number };
    expect(status).toMatchObject({ status: 'stopped', loops_run: 2 });
  });
});
