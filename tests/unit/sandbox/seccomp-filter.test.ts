// The seccomp filter bwrap loads, run through a small classic-BPF interpreter: a new unix socket
// is refused when the host network is shared, a setuid or setgid bit on each architecture it
// knows, and everything else passes.

import { describe, expect, it } from 'vitest';
import { sandboxFilter, sandboxFilterBytes, setIdFilterCovers, type Instruction } from '../../../lib/sandbox/seccomp-filter.js';

const ALLOW = 0x7fff0000;
const DENY_EACCES = 0x00050000 | 13;
const DENY_EPERM = 0x00050000 | 1;
const DENY_ENOSYS = 0x00050000 | 38;
const KILL = 0x80000000;

/** Runs the filter on one system call (struct seccomp_data: nr, arch, args). */
function run(program: Instruction[], call: { arch: number; nr: number; args?: number[] }): number {
  const data = new DataView(new ArrayBuffer(64));
  data.setInt32(0, call.nr, true);
  data.setUint32(4, call.arch, true);
  (call.args ?? []).forEach((value, i) => data.setUint32(16 + 8 * i, value, true));
  let acc = 0;
  for (let pc = 0; pc < program.length; pc++) {
    const { code, jt, jf, k } = program[pc]!;
    if (code === 0x20) acc = data.getUint32(k, true);
    else if (code === 0x15) pc += acc === k >>> 0 ? jt : jf;
    else if (code === 0x45) pc += (acc & k) !== 0 ? jt : jf;
    else if (code === 0x06) return k >>> 0;
    else throw new Error(`unknown instruction ${code}`);
  }
  throw new Error('fell off the end');
}

const X86_64 = 0xc000003e;
const AARCH64 = 0xc00000b7;
const I386 = 0x40000003;
const X32 = 0x40000000;
const O_CREAT = 0o100;
const O_TMPFILE = 0o20000000 | 0o200000;
const O_WRONLY = 1;

describe('the unix socket part', () => {
  const program = sandboxFilter({ unixSockets: true, setIdBits: false });
  it.each([
    ['x86-64 socket(AF_UNIX)', { arch: X86_64, nr: 41, args: [1] }, DENY_EACCES],
    ['x32 socket(AF_UNIX)', { arch: X86_64, nr: X32 + 41, args: [1] }, DENY_EACCES],
    ['arm64 socket(AF_UNIX)', { arch: AARCH64, nr: 198, args: [1] }, DENY_EACCES],
    ['i386 socket(AF_UNIX)', { arch: I386, nr: 359, args: [1] }, DENY_EACCES],
    ['i386 socketcall', { arch: I386, nr: 102, args: [1] }, DENY_EACCES],
    ['x86-64 socket(AF_INET)', { arch: X86_64, nr: 41, args: [2] }, ALLOW],
    ['x86-64 socketpair(AF_UNIX)', { arch: X86_64, nr: 53, args: [1] }, ALLOW],
    ['arm64 socket(AF_INET6)', { arch: AARCH64, nr: 198, args: [10] }, ALLOW],
    ['x86-64 connect', { arch: X86_64, nr: 42, args: [1] }, ALLOW],
    ['another machine', { arch: 0xc00000f3, nr: 198, args: [1] }, ALLOW],
    ['x86-64 chmod 4755 (no set-id part)', { arch: X86_64, nr: 90, args: [0, 0o4755] }, ALLOW],
  ])('%s', (_, call, expected) => {
    expect(run(program, call)).toBe(expected);
  });
});

describe('the set-id part', () => {
  const program = sandboxFilter({ unixSockets: false, setIdBits: true });
  it.each([
    ['x86-64 chmod 4755', { arch: X86_64, nr: 90, args: [0, 0o4755] }, DENY_EPERM],
    ['x86-64 chmod 2755', { arch: X86_64, nr: 90, args: [0, 0o2755] }, DENY_EPERM],
    ['x86-64 chmod 755', { arch: X86_64, nr: 90, args: [0, 0o755] }, ALLOW],
    ['x86-64 fchmod 6755', { arch: X86_64, nr: 91, args: [3, 0o6755] }, DENY_EPERM],
    ['x86-64 fchmod 1777 (sticky)', { arch: X86_64, nr: 91, args: [3, 0o1777] }, ALLOW],
    ['x86-64 fchmodat 4755', { arch: X86_64, nr: 268, args: [-100 >>> 0, 0, 0o4755] }, DENY_EPERM],
    ['x86-64 fchmodat 644', { arch: X86_64, nr: 268, args: [-100 >>> 0, 0, 0o644] }, ALLOW],
    ['x86-64 fchmodat2 4755', { arch: X86_64, nr: 452, args: [-100 >>> 0, 0, 0o4755, 0] }, DENY_EPERM],
    ['x86-64 creat 4755', { arch: X86_64, nr: 85, args: [0, 0o4755] }, DENY_EPERM],
    ['x86-64 mknod S_IFREG|4755', { arch: X86_64, nr: 133, args: [0, 0o104755, 0] }, DENY_EPERM],
    ['x86-64 mknodat S_IFREG|2755', { arch: X86_64, nr: 259, args: [-100 >>> 0, 0, 0o102755, 0] }, DENY_EPERM],
    ['x86-64 mknodat fifo 644', { arch: X86_64, nr: 259, args: [-100 >>> 0, 0, 0o10644, 0] }, ALLOW],
    ['x86-64 open O_CREAT 4755', { arch: X86_64, nr: 2, args: [0, O_CREAT | O_WRONLY, 0o4755] }, DENY_EPERM],
    ['x86-64 open O_CREAT 644', { arch: X86_64, nr: 2, args: [0, O_CREAT | O_WRONLY, 0o644] }, ALLOW],
    // Without O_CREAT the mode argument is whatever the register held: not looked at.
    ['x86-64 open O_RDONLY, a stray mode', { arch: X86_64, nr: 2, args: [0, 0, 0o6777] }, ALLOW],
    ['x86-64 openat O_CREAT 4755', { arch: X86_64, nr: 257, args: [-100 >>> 0, 0, O_CREAT | O_WRONLY, 0o4755] }, DENY_EPERM],
    ['x86-64 openat O_TMPFILE 2755', { arch: X86_64, nr: 257, args: [-100 >>> 0, 0, O_TMPFILE | O_WRONLY, 0o2755] }, DENY_EPERM],
    ['x86-64 openat O_RDONLY, a stray mode', { arch: X86_64, nr: 257, args: [-100 >>> 0, 0, 0, 0o4755] }, ALLOW],
    ['x86-64 openat2', { arch: X86_64, nr: 437, args: [] }, DENY_ENOSYS],
    ['x86-64 io_uring_setup', { arch: X86_64, nr: 425, args: [] }, DENY_ENOSYS],
    ['x32 chmod 4755', { arch: X86_64, nr: X32 + 90, args: [0, 0o4755] }, DENY_EPERM],
    ['x32 openat O_CREAT 4755', { arch: X86_64, nr: X32 + 257, args: [-100 >>> 0, 0, O_CREAT, 0o4755] }, DENY_EPERM],
    ['x32 io_uring_setup', { arch: X86_64, nr: X32 + 425, args: [] }, DENY_ENOSYS],
    ['i386 chmod 4755', { arch: I386, nr: 15, args: [0, 0o4755] }, DENY_EPERM],
    ['i386 fchmod 2755', { arch: I386, nr: 94, args: [3, 0o2755] }, DENY_EPERM],
    ['i386 fchmodat 4755', { arch: I386, nr: 306, args: [0, 0, 0o4755] }, DENY_EPERM],
    ['i386 creat 4755', { arch: I386, nr: 8, args: [0, 0o4755] }, DENY_EPERM],
    ['i386 mknod S_IFREG|4755', { arch: I386, nr: 14, args: [0, 0o104755, 0] }, DENY_EPERM],
    ['i386 mknodat S_IFREG|4755', { arch: I386, nr: 297, args: [0, 0, 0o104755, 0] }, DENY_EPERM],
    ['i386 open O_CREAT 4755', { arch: I386, nr: 5, args: [0, O_CREAT, 0o4755] }, DENY_EPERM],
    ['i386 openat O_CREAT 4755', { arch: I386, nr: 295, args: [0, 0, O_CREAT, 0o4755] }, DENY_EPERM],
    ['i386 openat2', { arch: I386, nr: 437, args: [] }, DENY_ENOSYS],
    ['i386 chmod 755', { arch: I386, nr: 15, args: [0, 0o755] }, ALLOW],
    ['arm64 fchmod 4755', { arch: AARCH64, nr: 52, args: [3, 0o4755] }, DENY_EPERM],
    ['arm64 fchmodat 2755', { arch: AARCH64, nr: 53, args: [0, 0, 0o2755] }, DENY_EPERM],
    ['arm64 fchmodat2 4755', { arch: AARCH64, nr: 452, args: [0, 0, 0o4755, 0] }, DENY_EPERM],
    ['arm64 mknodat S_IFREG|4755', { arch: AARCH64, nr: 33, args: [0, 0, 0o104755, 0] }, DENY_EPERM],
    ['arm64 openat O_CREAT 4755', { arch: AARCH64, nr: 56, args: [0, 0, O_CREAT, 0o4755] }, DENY_EPERM],
    ['arm64 openat O_RDONLY', { arch: AARCH64, nr: 56, args: [0, 0, 0, 0o4755] }, ALLOW],
    ['arm64 openat2', { arch: AARCH64, nr: 437, args: [] }, DENY_ENOSYS],
    ['arm64 io_uring_setup', { arch: AARCH64, nr: 425, args: [] }, DENY_ENOSYS],
    ['arm64 fchmodat 644', { arch: AARCH64, nr: 53, args: [0, 0, 0o644] }, ALLOW],
    ['x86-64 socket(AF_UNIX) (no socket part)', { arch: X86_64, nr: 41, args: [1] }, ALLOW],
    ['another machine (32-bit arm)', { arch: 0x40000028, nr: 15, args: [0, 0o755] }, KILL],
  ])('%s', (_, call, expected) => {
    expect(run(program, call)).toBe(expected);
  });

  it('covers x86-64 and arm64 only', () => {
    expect(['x64', 'arm64', 'ia32', 'arm', 'ppc64', 's390x'].map((arch) => setIdFilterCovers(arch))).toEqual([true, true, false, false, false, false]);
  });
});

describe('both parts', () => {
  const program = sandboxFilter({ unixSockets: true, setIdBits: true });
  it.each([
    ['x86-64 socket(AF_UNIX)', { arch: X86_64, nr: 41, args: [1] }, DENY_EACCES],
    ['i386 socketcall', { arch: I386, nr: 102, args: [1] }, DENY_EACCES],
    ['x86-64 chmod 4755', { arch: X86_64, nr: 90, args: [0, 0o4755] }, DENY_EPERM],
    ['arm64 openat O_CREAT 4755', { arch: AARCH64, nr: 56, args: [0, 0, O_CREAT, 0o4755] }, DENY_EPERM],
    ['x86-64 write', { arch: X86_64, nr: 1, args: [1] }, ALLOW],
  ])('%s', (_, call, expected) => {
    expect(run(program, call)).toBe(expected);
  });

  it('is laid out as struct sock_filter, 8 bytes an instruction, little-endian', () => {
    const bytes = sandboxFilterBytes({ unixSockets: true, setIdBits: true });
    expect(bytes.length).toBe(program.length * 8);
    const view = new DataView(bytes.buffer);
    expect(view.getUint16(0, true)).toBe(0x20);
    expect(view.getUint32(4, true)).toBe(4);
  });
});
