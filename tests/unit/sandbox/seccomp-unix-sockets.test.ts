// The seccomp filter bwrap loads when the host network is shared, run through a small classic-BPF
// interpreter: a new unix socket is refused on each architecture it knows, everything else passes.

import { describe, expect, it } from 'vitest';
import { unixSocketFilter, unixSocketFilterBytes, type Instruction } from '../../../lib/sandbox/seccomp-unix-sockets.js';

const ALLOW = 0x7fff0000;
const DENY_EACCES = 0x00050000 | 13;

/** Runs the filter on one system call (struct seccomp_data: nr, arch, args). */
function run(program: Instruction[], call: { arch: number; nr: number; arg0: number }): number {
  const data = new DataView(new ArrayBuffer(64));
  data.setInt32(0, call.nr, true);
  data.setUint32(4, call.arch, true);
  data.setUint32(16, call.arg0, true);
  let acc = 0;
  for (let pc = 0; pc < program.length; pc++) {
    const { code, jt, jf, k } = program[pc]!;
    if (code === 0x20) acc = data.getUint32(k, true);
    else if (code === 0x15) pc += acc === k >>> 0 ? jt : jf;
    else if (code === 0x06) return k >>> 0;
    else throw new Error(`unknown instruction ${code}`);
  }
  throw new Error('fell off the end');
}

const X86_64 = 0xc000003e;
const AARCH64 = 0xc00000b7;
const I386 = 0x40000003;

describe('the unix socket seccomp filter', () => {
  const program = unixSocketFilter();
  it.each([
    ['x86-64 socket(AF_UNIX)', { arch: X86_64, nr: 41, arg0: 1 }, DENY_EACCES],
    ['x32 socket(AF_UNIX)', { arch: X86_64, nr: 0x40000000 + 41, arg0: 1 }, DENY_EACCES],
    ['arm64 socket(AF_UNIX)', { arch: AARCH64, nr: 198, arg0: 1 }, DENY_EACCES],
    ['i386 socket(AF_UNIX)', { arch: I386, nr: 359, arg0: 1 }, DENY_EACCES],
    ['i386 socketcall', { arch: I386, nr: 102, arg0: 1 }, DENY_EACCES],
    ['x86-64 socket(AF_INET)', { arch: X86_64, nr: 41, arg0: 2 }, ALLOW],
    ['x86-64 socketpair(AF_UNIX)', { arch: X86_64, nr: 53, arg0: 1 }, ALLOW],
    ['arm64 socket(AF_INET6)', { arch: AARCH64, nr: 198, arg0: 10 }, ALLOW],
    ['x86-64 connect', { arch: X86_64, nr: 42, arg0: 1 }, ALLOW],
    ['another machine', { arch: 0xc00000f3, nr: 198, arg0: 1 }, ALLOW],
  ])('%s', (_, call, expected) => {
    expect(run(program, call)).toBe(expected);
  });

  it('is laid out as struct sock_filter, 8 bytes an instruction, little-endian', () => {
    const bytes = unixSocketFilterBytes();
    expect(bytes.length).toBe(program.length * 8);
    const view = new DataView(bytes.buffer);
    expect(view.getUint16(0, true)).toBe(0x20);
    expect(view.getUint32(4, true)).toBe(4);
  });
});
