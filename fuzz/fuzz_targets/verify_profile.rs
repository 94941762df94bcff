//! Structure-aware mutations of the vendored conformance vectors into `verify_profile`
//! (see `concordia_fuzz::vectors`): unmutated vectors get their expected verdict (every
//! positive vector accepts), layout-only mutations keep the verdict, nothing panics.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| concordia_fuzz::vectors::run(data));
