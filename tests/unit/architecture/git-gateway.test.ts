// Every git command of ralph and ralph-fleet goes through the git gateway
// (lib/platform/git-gateway.ts): processes are spawned only by lib/platform/start-process.ts,
// which only the process runner and the gateway itself use, and the runner sends every command
// named git — however it is spelled — to the gateway. No module starts git through another
// program (a shell, env, nice) either: no argv of a spawn begins with git.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isGitCommand } from '../../../lib/platform/git-gateway.js';
import { REPO_ROOT } from '../../helpers/run-cli.js';

const LIB = join(REPO_ROOT, 'lib');
const sources = readdirSync(LIB, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
const text = (file: string) => readFileSync(join(LIB, file), 'utf8');

// Spawns outside the runner that start no git: the Docker sandbox's synchronous `docker rm` on exit.
const OTHER_SPAWNERS: Record<string, RegExp> = { [join('sandbox', 'docker-sandbox.ts')]: /spawnSync\(docker, /g };

describe('the git gateway is the only way to git', () => {
  it('only the process spawner imports child_process (and the Docker sandbox, for docker alone)', () => {
    const importers = sources.filter((file) => /from 'node:child_process'|require\w*\('node:child_process'\)/.test(text(file)));
    expect(importers.sort()).toEqual([join('platform', 'start-process.ts'), ...Object.keys(OTHER_SPAWNERS)].sort());
    for (const [file, allowed] of Object.entries(OTHER_SPAWNERS)) {
      const spawns = text(file).match(/(?<![.\w])(?:spawn|spawnSync|execFile|execFileSync|exec|execSync|fork)\(/g) ?? [];
      expect(spawns.length).toBe((text(file).match(allowed) ?? []).length);
    }
  });

  it('only the process runner and the gateway start processes', () => {
    const users = sources.filter(
      (file) => file !== join('platform', 'start-process.ts') && /from '\.\/start-process\.js'|from '\.\.\/platform\/start-process\.js'/.test(text(file)),
    );
    expect(users.sort()).toEqual([join('platform', 'git-gateway.ts'), join('platform', 'process.ts')]);
  });

  it("every room asks for a git command by name (runGitCommand, startGitCommand), never as a runner's or a script's 'git'", () => {
    const named = join('platform', 'git-operations.ts');
    const unnamed = sources.filter((file) => file !== named && /(?:\.(?:run|start)|loadScript)\(\s*['"`]git['"`]/.test(text(file)));
    expect(unnamed).toEqual([]);
    expect(text(named)).toMatch(/runner\.run\('git', args, options\)[\s\S]*runner\.start\('git', args, options\)/);
  });

  it('the runner sends every spelling of git to the gateway', () => {
    for (const cmd of ['git', '/usr/bin/git', '/opt/homebrew/bin/git', './git']) expect(isGitCommand(cmd)).toBe(true);
    expect(text(join('platform', 'process.ts'))).toMatch(/isGitCommand\(cmd\)[\s\S]*prepareGitStart[\s\S]*isGitCommand\(cmd\)[\s\S]*prepareGitRun/);
  });

  it('no module starts git through another program', () => {
    const wrapped = sources.filter((file) => /\.(?:run|start)\(\s*'(?:sh|bash|env|nice|nohup|timeout|xargs|command)'\s*,\s*\[[^\]]*'git\b/.test(text(file)));
    expect(wrapped).toEqual([]);
  });
});
