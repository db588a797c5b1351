// The seccomp filter (classic BPF, as bwrap's --seccomp reads it) of the bubblewrap sandbox. Pure.
//
// Unix sockets: with the host network shared, the sandbox would otherwise reach every abstract
// unix socket of the host (they live in the network namespace, not in a folder the allow-list
// leaves out), so socket(AF_UNIX, …) fails with EACCES. socketpair() is not touched: programs
// still talk to their own children.
//
// Setuid and setgid bits: no call can set one, so no file the agent makes carries one and ralph
// need not look for them after each call. Every call that sets a file's mode fails with EPERM
// when the mode asked for holds S_ISUID or S_ISGID: chmod, fchmod, fchmodat, fchmodat2, mknod,
// mknodat, creat, and open and openat when they create (O_CREAT or O_TMPFILE). openat2 (whose
// mode lies in a struct the filter cannot read) and io_uring_setup (whose requests it never
// sees) fail with ENOSYS, so programs fall back to the calls above. A call from an architecture
// the filter does not know ends the process. Known: x86-64 with its x32 and i386 entries, and
// arm64; on other machines (`setIdFilterCovers`) the filter holds the unix socket part only.

const BPF_LD_W_ABS = 0x20;
const BPF_JMP_JEQ_K = 0x15;
const BPF_JMP_JSET_K = 0x45;
const BPF_RET_K = 0x06;

const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;
const SECCOMP_RET_KILL_PROCESS = 0x80000000;
const EPERM = 1;
const EACCES = 13;
const ENOSYS = 38;
const AF_UNIX = 1;
const SET_ID_BITS = 0o6000;
// O_CREAT and __O_TMPFILE, the same on each architecture below.
const CREATES = 0o100 | 0o20000000;

/** struct seccomp_data: nr at 0, arch at 4, args[i] (its low half, little-endian) at 16 + 8i. */
const NR = 0;
const ARCH = 4;
const arg = (i: number): number => 16 + 8 * i;

const AUDIT_ARCH_X86_64 = 0xc000003e;
const AUDIT_ARCH_I386 = 0x40000003;
const AUDIT_ARCH_AARCH64 = 0xc00000b7;
const X32_BIT = 0x40000000;

/** What a call's arguments are checked for: where its mode is, or where its flags and mode are. */
type Check = 'mode1' | 'mode2' | 'open1' | 'open2' | 'refuse' | 'family' | 'deny';
type Machine = 'x86_64' | 'i386' | 'aarch64';

/** The calls the set-id part checks, and where each keeps its flags and mode. */
const SET_ID_CHECKS = {
  chmod: 'mode1',
  fchmod: 'mode1',
  creat: 'mode1',
  mknod: 'mode1',
  fchmodat: 'mode2',
  fchmodat2: 'mode2',
  mknodat: 'mode2',
  open: 'open1',
  openat: 'open2',
  openat2: 'refuse',
  io_uring_setup: 'refuse',
} as const satisfies Record<string, Check>;

/** Their numbers on each architecture (arm64 has no chmod, creat, mknod or open). */
const SET_ID_CALLS: Record<Machine, Partial<Record<keyof typeof SET_ID_CHECKS, number>>> = {
  x86_64: {
    chmod: 90,
    fchmod: 91,
    creat: 85,
    mknod: 133,
    fchmodat: 268,
    fchmodat2: 452,
    mknodat: 259,
    open: 2,
    openat: 257,
    openat2: 437,
    io_uring_setup: 425,
  },
  i386: { chmod: 15, fchmod: 94, creat: 8, mknod: 14, fchmodat: 306, fchmodat2: 452, mknodat: 297, open: 5, openat: 295, openat2: 437, io_uring_setup: 425 },
  aarch64: { fchmod: 52, fchmodat: 53, fchmodat2: 452, mknodat: 33, openat: 56, openat2: 437, io_uring_setup: 425 },
};

/** The socket call on each architecture (i386's socketcall is refused whole). */
const SOCKET_CALLS: Record<Machine, Array<[number, Check]>> = {
  x86_64: [[41, 'family']],
  i386: [
    [102, 'deny'],
    [359, 'family'],
  ],
  aarch64: [[198, 'family']],
};

type Step =
  | { load: number }
  | { ifEquals: number; then: string; else?: string }
  | { ifAnyBit: number; then: string; else?: string }
  | { ret: number }
  | { label: string };

export interface SandboxFilterOptions {
  /** Refuse new unix sockets (the host network is shared). */
  unixSockets: boolean;
  /** Refuse setuid and setgid bits (only where `setIdFilterCovers`). */
  setIdBits: boolean;
}

/** Whether the set-id part knows the calls of this machine (`process.arch`). */
export function setIdFilterCovers(arch: string = process.arch): boolean {
  return arch === 'x64' || arch === 'arm64';
}

function program(options: SandboxFilterOptions): Step[] {
  const calls = (machine: Machine, offset = 0): Step[] => {
    const setId = Object.entries(SET_ID_CALLS[machine]).map(([name, nr]): [number, Check] => [nr, SET_ID_CHECKS[name as keyof typeof SET_ID_CHECKS]]);
    const pairs = [...(options.unixSockets ? SOCKET_CALLS[machine] : []), ...(options.setIdBits ? setId : [])];
    return pairs.map(([nr, check]) => ({ ifEquals: offset + nr, then: check }));
  };
  return [
    { load: ARCH },
    { ifEquals: AUDIT_ARCH_X86_64, then: 'x86_64' },
    { ifEquals: AUDIT_ARCH_AARCH64, then: 'aarch64' },
    { ifEquals: AUDIT_ARCH_I386, then: 'i386' },
    { ret: options.setIdBits ? SECCOMP_RET_KILL_PROCESS : SECCOMP_RET_ALLOW },
    { label: 'x86_64' },
    { load: NR },
    ...calls('x86_64'),
    ...calls('x86_64', X32_BIT),
    { ret: SECCOMP_RET_ALLOW },
    { label: 'aarch64' },
    { load: NR },
    ...calls('aarch64'),
    { ret: SECCOMP_RET_ALLOW },
    { label: 'i386' },
    { load: NR },
    ...calls('i386'),
    { ret: SECCOMP_RET_ALLOW },
    // The checks, shared by the architectures (the arguments sit at the same places).
    { label: 'family' },
    { load: arg(0) },
    { ifEquals: AF_UNIX, then: 'deny', else: 'allow' },
    { label: 'open1' },
    { load: arg(1) },
    { ifAnyBit: CREATES, then: 'mode2', else: 'allow' },
    { label: 'open2' },
    { load: arg(2) },
    { ifAnyBit: CREATES, then: 'mode3', else: 'allow' },
    { label: 'mode3' },
    { load: arg(3) },
    { ifAnyBit: SET_ID_BITS, then: 'set-id', else: 'allow' },
    { label: 'mode2' },
    { load: arg(2) },
    { ifAnyBit: SET_ID_BITS, then: 'set-id', else: 'allow' },
    { label: 'mode1' },
    { load: arg(1) },
    { ifAnyBit: SET_ID_BITS, then: 'set-id', else: 'allow' },
    { label: 'set-id' },
    { ret: SECCOMP_RET_ERRNO | EPERM },
    { label: 'refuse' },
    { ret: SECCOMP_RET_ERRNO | ENOSYS },
    { label: 'deny' },
    { ret: SECCOMP_RET_ERRNO | EACCES },
    { label: 'allow' },
    { ret: SECCOMP_RET_ALLOW },
  ];
}

/** One instruction: code, jump if true, jump if false, constant (struct sock_filter). */
export interface Instruction {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

/** The filter's instructions, jumps resolved (each relative to the next instruction). */
export function sandboxFilter(options: SandboxFilterOptions): Instruction[] {
  const steps = program(options);
  const at = new Map<string, number>();
  let index = 0;
  for (const step of steps) {
    if ('label' in step) at.set(step.label, index);
    else index++;
  }
  const out: Instruction[] = [];
  for (const step of steps) {
    if ('label' in step) continue;
    const here = out.length;
    const jump = (label: string | undefined): number => {
      if (label === undefined) return 0;
      const distance = at.get(label)! - here - 1;
      // A jump is one byte, forward only.
      if (distance < 0 || distance > 255) throw new Error(`seccomp filter: jump to ${label} out of reach`);
      return distance;
    };
    if ('load' in step) out.push({ code: BPF_LD_W_ABS, jt: 0, jf: 0, k: step.load });
    else if ('ret' in step) out.push({ code: BPF_RET_K, jt: 0, jf: 0, k: step.ret });
    else if ('ifEquals' in step) out.push({ code: BPF_JMP_JEQ_K, jt: jump(step.then), jf: jump(step.else), k: step.ifEquals });
    else out.push({ code: BPF_JMP_JSET_K, jt: jump(step.then), jf: jump(step.else), k: step.ifAnyBit });
  }
  return out;
}

/** The filter as bwrap reads it from its --seccomp file descriptor (little-endian). */
export function sandboxFilterBytes(options: SandboxFilterOptions): Uint8Array {
  const instructions = sandboxFilter(options);
  const bytes = new Uint8Array(instructions.length * 8);
  const view = new DataView(bytes.buffer);
  instructions.forEach((instruction, i) => {
    view.setUint16(i * 8, instruction.code, true);
    view.setUint8(i * 8 + 2, instruction.jt);
    view.setUint8(i * 8 + 3, instruction.jf);
    view.setUint32(i * 8 + 4, instruction.k >>> 0, true);
  });
  return bytes;
}
