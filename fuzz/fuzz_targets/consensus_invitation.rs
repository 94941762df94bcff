//! The Consensus invitation email parser (`Invitation::parse` with the default origin):
//! no panic on any bytes; credentials are only handed out when every check passed.
#![no_main]
use concordia_core::consensus::invitation::{Invitation, Origin};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(inv) = Invitation::parse(data, &Origin::DEFAULT) {
        let all = inv.checks().all();
        assert_eq!(inv.secret().is_ok(), all);
        assert_eq!(inv.exchange_request().is_ok(), all);
        let _ = (inv.id(), inv.exchange_href(), inv.email_proof());
    }
});
