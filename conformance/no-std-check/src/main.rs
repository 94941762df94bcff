//! Bare-metal proof and footprint probe for concordia-core.
//!
//! `#![no_std]`, `#![no_main]`, no global allocator, a `loop {}` panic handler: if
//! concordia-core (or anything it depends on) needed `alloc` or `std`, this would not link.
//!
//! The program does, once, what an embedded verifier does with a message off the wire:
//! parse the signed 1 KB message in `data/message.json` into a static node buffer, hash its
//! canonical form (SHA-256 over RFC 8785 output, the chain identity, compared with
//! `data/message.hash`), and verify its Ed25519 signature over the canonical preimage
//! streamed into the verifier (`data/public_key.b64url`). The data was produced by the
//! `concordia` CLI (`keygen --seed`, `sign`, `hash`); see tools/footprint.sh. With the
//! `es256` feature it also verifies the ES256 signature of the same message
//! (`data/message.es256.json` under `data/es256_public_key.b64url`, made with `concordia
//! keygen --alg ES256 --seed 5eed...5eed` and `sign`).
//!
//! Under `qemu-system-arm -machine mps2-an386` it reports over semihosting how much stack
//! the run used: cortex-m-rt's `paint-stack` fills the stack with `0xCCCC_CCCC` at reset,
//! and afterwards the lowest overwritten word is the high-water mark. It exits with
//! status 0 when the message verified, 1 otherwise.
#![no_std]
#![no_main]

use concordia_core::digest::Digest;
use concordia_core::json::{self, Node};
use concordia_core::message;
use concordia_core::sign::PublicKey;
use cortex_m_rt::entry;

/// The signed message, canonical JSON, 1091 bytes.
static MESSAGE: &[u8] = include_bytes!("../data/message.json");
/// Its signer's public key, padded base64url, as `concordia keygen` prints it.
static PUBLIC_KEY: &[u8] = include_bytes!("../data/public_key.b64url");
/// `concordia hash data/message.json`.
static HASH: &[u8] = include_bytes!("../data/message.hash");

/// The same message signed with ES256 (canonical JSON).
#[cfg(feature = "es256")]
static MESSAGE_ES256: &[u8] = include_bytes!("../data/message.es256.json");
/// Its signer's P-256 public key, padded base64url of the uncompressed point.
#[cfg(feature = "es256")]
static ES256_PUBLIC_KEY: &[u8] = include_bytes!("../data/es256_public_key.b64url");

/// Node buffer size: `input.len() / 2 + 2` always suffices (json.rs).
#[cfg(not(feature = "es256"))]
const NODES: usize = MESSAGE.len() / 2 + 2;
#[cfg(feature = "es256")]
const NODES: usize = if MESSAGE.len() > MESSAGE_ES256.len() { MESSAGE.len() } else { MESSAGE_ES256.len() } / 2 + 2;

/// What went wrong, as the exit report's `result` code.
#[derive(Clone, Copy)]
#[repr(u32)]
enum Outcome {
    Verified = 0,
    BadParse = 1,
    BadKey = 2,
    BadHash = 3,
    BadSignature = 4,
}

/// The measured path: parse, canonicalize (hash) and verify one message.
#[inline(never)]
fn parse_canonicalize_verify(nodes: &mut [Node]) -> Outcome {
    let Ok(text) = core::str::from_utf8(PUBLIC_KEY) else {
        return Outcome::BadKey;
    };
    let Ok(key) = PublicKey::from_b64(text) else {
        return Outcome::BadKey;
    };
    let Ok(expected) =
        core::str::from_utf8(HASH).map_err(|_| ()).and_then(|h| Digest::parse_prefixed(h).map_err(|_| ()))
    else {
        return Outcome::BadHash;
    };
    let Ok(doc) = json::parse(MESSAGE, nodes) else {
        return Outcome::BadParse;
    };
    if message::message_hash(doc.root()) != expected {
        return Outcome::BadHash;
    }
    if message::verify_signed_object(doc.root(), &key).is_err() {
        return Outcome::BadSignature;
    }
    #[cfg(feature = "es256")]
    {
        let Ok(key) = core::str::from_utf8(ES256_PUBLIC_KEY)
            .map_err(|_| ())
            .and_then(|t| concordia_core::es256::PublicKey::from_b64(t).map_err(|_| ()))
        else {
            return Outcome::BadKey;
        };
        let Ok(doc) = json::parse(MESSAGE_ES256, nodes) else {
            return Outcome::BadParse;
        };
        if message::verify_signed_object_es256(doc.root(), &key).is_err() {
            return Outcome::BadSignature;
        }
    }
    Outcome::Verified
}

#[entry]
fn main() -> ! {
    // cortex-m-rt turns this into a safe `&'static mut`: the static node buffer.
    static mut TAPE: [Node; NODES] = [Node::EMPTY; NODES];

    let sp_in_main = host::stack_pointer();
    let outcome = parse_canonicalize_verify(TAPE);
    let (stack_top, low_water) = host::stack_high_water();

    // Report: total stack from the top of RAM (reset + main + the path), and the part
    // below main's frame, i.e. what parse_canonicalize_verify itself used.
    let mut line = host::Line::new();
    line.push(b"concordia-no-std-check result=");
    line.num(outcome as u32);
    line.push(b" stack_total=");
    line.num(stack_top.wrapping_sub(low_water));
    line.push(b" stack_path=");
    line.num(sp_in_main.wrapping_sub(low_water));
    line.push(b" nodes_static=");
    line.num(NODES as u32);
    line.push(b" message_bytes=");
    line.num(MESSAGE.len() as u32);
    line.push(b"\n");
    host::write0(&line);
    host::exit(matches!(outcome, Outcome::Verified))
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    loop {}
}

/// The few operations that need `unsafe`: ARM semihosting calls and reading the painted
/// stack. None of this is in concordia-core, which forbids `unsafe`.
mod host {
    /// Current stack pointer.
    #[inline(always)]
    pub fn stack_pointer() -> u32 {
        let sp: u32;
        // SAFETY: reads a register, touches no memory.
        unsafe { core::arch::asm!("mov {}, sp", out(reg) sp, options(nomem, nostack, preserves_flags)) };
        sp
    }

    extern "C" {
        // From cortex-m-rt's link.x: the stack runs from `_stack_start` (top, exclusive)
        // down to `_stack_end`; `paint-stack` filled all of it at reset.
        static _stack_start: u32;
        static _stack_end: u32;
    }

    const PAINT: u32 = 0xCCCC_CCCC;

    /// `(top of stack, lowest address whose paint was overwritten)`.
    #[inline(never)]
    pub fn stack_high_water() -> (u32, u32) {
        let top = core::ptr::addr_of!(_stack_start) as u32;
        let mut p = core::ptr::addr_of!(_stack_end) as u32;
        // Scan up from the bottom; stop well below this function's own frame.
        let limit = stack_pointer().saturating_sub(16);
        while p < limit {
            // SAFETY: `_stack_end..limit` is RAM reserved for the stack, word aligned
            // (link.x asserts it), below the live frames.
            let w = unsafe { core::ptr::read_volatile(p as *const u32) };
            if w != PAINT {
                break;
            }
            p += 4;
        }
        (top, p)
    }

    /// ARM semihosting call (`bkpt 0xAB`, Thumb).
    fn call(op: u32, arg: usize) -> u32 {
        let r: u32;
        // SAFETY: the debugger/QEMU handles the breakpoint; `arg` points at data that
        // lives across the call.
        unsafe { core::arch::asm!("bkpt #0xab", inout("r0") op => r, in("r1") arg, options(nostack)) };
        r
    }

    /// SYS_WRITE0: prints a NUL-terminated string on the host.
    pub fn write0(line: &Line) {
        call(0x04, line.buf.as_ptr() as usize);
    }

    /// SYS_EXIT: ADP_Stopped_ApplicationExit (QEMU exits 0) or RunTimeErrorUnknown (1).
    #[allow(clippy::empty_loop)] // only reached if no debugger/QEMU handles the call
    pub fn exit(ok: bool) -> ! {
        call(0x18, if ok { 0x2_0026 } else { 0x2_0023 });
        loop {}
    }

    /// A NUL-terminated line of at most 127 bytes, built without `core::fmt`.
    pub struct Line {
        buf: [u8; 128],
        len: usize,
    }

    impl Line {
        pub fn new() -> Self {
            Line { buf: [0; 128], len: 0 }
        }

        pub fn push(&mut self, s: &[u8]) {
            for &b in s {
                if self.len + 1 < self.buf.len() {
                    self.buf[self.len] = b;
                    self.len += 1;
                }
            }
        }

        pub fn num(&mut self, mut v: u32) {
            let mut d = [0u8; 10];
            let mut i = d.len();
            loop {
                i -= 1;
                d[i] = b'0' + (v % 10) as u8;
                v /= 10;
                if v == 0 {
                    break;
                }
            }
            self.push(&d[i..]);
        }
    }
}
