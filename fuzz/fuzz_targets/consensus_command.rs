//! The Consensus room command wire parser (`Command::parse_wire` into 64 nodes): no panic;
//! an accepted command re-serializes (`wire_to_slice`) to a wire form that parses to the
//! same command (action, revision, digest, body, normalized digest).
#![no_main]
use concordia_core::consensus::command::Command;
use concordia_core::json::Node;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut nodes = [Node::EMPTY; 64];
    let Ok(cmd) = Command::parse_wire(data, &mut nodes) else { return };
    let mut out = vec![0u8; 64 * 1024];
    let n = cmd.wire_to_slice(&mut out).expect("an accepted command re-serializes");
    let mut nodes2 = [Node::EMPTY; 64];
    let again = Command::parse_wire(&out[..n], &mut nodes2).expect("its own wire form parses");
    assert_eq!(again.action(), cmd.action());
    assert_eq!(again.revision(), cmd.revision());
    assert_eq!(again.digest(), cmd.digest());
    assert!(again.body_chars().eq(cmd.body_chars()));
    assert_eq!(again.normalized_digest(), cmd.normalized_digest());
    let _ = cmd.idempotency_key();
});
