//! Random sequences of signed messages (and expire / make_dormant) into
//! `session::Session`, with the state machine's invariants asserted after each step
//! (see `concordia_fuzz::session`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| concordia_fuzz::session::run(data));
