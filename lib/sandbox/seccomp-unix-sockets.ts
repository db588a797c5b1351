// A seccomp filter (classic BPF, as bwrap's --seccomp reads it) that refuses to make a new unix
// socket: socket(AF_UNIX, …) fails with EACCES. With the host network shared, the bubblewrap
// sandbox would otherwise reach every abstract unix socket of the host (they live in the network
// namespace, not in a folder the allow-list leaves out). socketpair() is not touched: programs
// still talk to their own children. x86-64 (with its x32 and i386 entries) and arm64; on other
// machines the filter lets everything through. Pure.

const BPF_LD_W_ABS = 0x20;
const BPF_JMP_JEQ_K = 0x15;
const BPF_RET_K = 0x06;

const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;
const EACCES = 13;
const AF_UNIX = 1;

/** struct seccomp_data: nr at 0, arch at 4, args[0] (its low half, little-endian) at 16. */
const NR = 0;
const ARCH = 4;
const ARG0 = 16;

const AUDIT_ARCH_X86_64 = 0xc000003e;
const AUDIT_ARCH_I386 = 0x40000003;
const AUDIT_ARCH_AARCH64 = 0xc00000b7;
const X32_BIT = 0x40000000;

type Step = { load: number } | { ifEquals: number; then: string; else?: string } | { ret: number } | { label: string };

/** The program: per architecture, the socket call's number; socketcall on i386 is refused whole. */
const PROGRAM: Step[] = [
  { load: ARCH },
  { ifEquals: AUDIT_ARCH_X86_64, then: 'x86_64', else: 'not-x86_64' },
  { label: 'x86_64' },
  { load: NR },
  { ifEquals: 41, then: 'family' },
  { ifEquals: X32_BIT + 41, then: 'family', else: 'allow' },
  { label: 'not-x86_64' },
  { ifEquals: AUDIT_ARCH_AARCH64, then: 'aarch64', else: 'not-aarch64' },
  { label: 'aarch64' },
  { load: NR },
  { ifEquals: 198, then: 'family', else: 'allow' },
  { label: 'not-aarch64' },
  { ifEquals: AUDIT_ARCH_I386, then: 'i386', else: 'allow' },
  { label: 'i386' },
  { load: NR },
  { ifEquals: 102, then: 'deny' },
  { ifEquals: 359, then: 'family', else: 'allow' },
  { label: 'family' },
  { load: ARG0 },
  { ifEquals: AF_UNIX, then: 'deny', else: 'allow' },
  { label: 'deny' },
  { ret: SECCOMP_RET_ERRNO | EACCES },
  { label: 'allow' },
  { ret: SECCOMP_RET_ALLOW },
];

/** One instruction: code, jump if true, jump if false, constant (struct sock_filter). */
export interface Instruction {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

/** The filter's instructions, jumps resolved (each relative to the next instruction). */
export function unixSocketFilter(): Instruction[] {
  const at = new Map<string, number>();
  let index = 0;
  for (const step of PROGRAM) {
    if ('label' in step) at.set(step.label, index);
    else index++;
  }
  const out: Instruction[] = [];
  for (const step of PROGRAM) {
    if ('label' in step) continue;
    const here = out.length;
    const jump = (label: string | undefined) => (label === undefined ? 0 : at.get(label)! - here - 1);
    if ('load' in step) out.push({ code: BPF_LD_W_ABS, jt: 0, jf: 0, k: step.load });
    else if ('ret' in step) out.push({ code: BPF_RET_K, jt: 0, jf: 0, k: step.ret });
    else out.push({ code: BPF_JMP_JEQ_K, jt: jump(step.then), jf: jump(step.else), k: step.ifEquals });
  }
  return out;
}

/** The filter as bwrap reads it from its --seccomp file descriptor (little-endian). */
export function unixSocketFilterBytes(): Uint8Array {
  const program = unixSocketFilter();
  const bytes = new Uint8Array(program.length * 8);
  const view = new DataView(bytes.buffer);
  program.forEach((instruction, i) => {
    view.setUint16(i * 8, instruction.code, true);
    view.setUint8(i * 8 + 2, instruction.jt);
    view.setUint8(i * 8 + 3, instruction.jf);
    view.setUint32(i * 8 + 4, instruction.k >>> 0, true);
  });
  return bytes;
}
