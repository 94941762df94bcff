//! AIP handle parsing (`Handle::parse`, `handle::parse_any`): no panic; an accepted handle
//! is reached again from each of its spellings (`name#domain`, `name%23domain`,
//! `@name@domain`, `did:aip:<domain>:<name>`).
#![no_main]
use concordia_core::aip::{did, handle};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = handle::parse_any(text);
    let Ok(h) = handle::Handle::parse(text) else { return };
    assert_eq!(handle::Handle::parse(h.handle().as_str()), Ok(h));
    assert_eq!(handle::Handle::parse(h.url_form().as_str()), Ok(h));
    assert_eq!(handle::Handle::parse(h.at_form().as_str()), Ok(h));
    assert_eq!(did::parse_did(h.did().as_str()), Ok(h));
    assert_eq!(handle::parse_any(h.did().as_str()), Ok(h));
    assert_eq!(handle::Handle::new(h.name(), h.domain()), Ok(h));
});
