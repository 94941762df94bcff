//! The 22 verification profiles of the conformance contract.

use concordia_core::profiles::{self, Profile, VerifyOptions};
use concordia_core::Error;

use crate::errors::ProtocolError;
use crate::util::parse;

/// Checks the record `input_json` under the conformance profile named `profile` (e.g.
/// `receipt-v1`, `message-chain-v1`; see `profile_names`) with `context_json`, the
/// vector's context object (keys, expected digests, `now`). Returns normally when the
/// record is accepted; a rejection's variant is the contract's reason class.
#[uniffi::export]
pub fn verify_profile(profile: String, input_json: String, context_json: String) -> Result<(), ProtocolError> {
    let profile = Profile::from_name(&profile).ok_or(Error::InvalidArgument("unknown verification profile"))?;
    let (mut input_nodes, mut context_nodes) = (concordia_host::Nodes::new(), concordia_host::Nodes::new());
    let input = parse(input_json.as_bytes(), &mut input_nodes)?;
    let context = parse(context_json.as_bytes(), &mut context_nodes)?;
    profiles::verify_profile(profile, input.root(), context.root(), &VerifyOptions::default())?;
    Ok(())
}

/// The names of the 22 verification profiles, in the contract's order.
#[uniffi::export]
pub fn profile_names() -> Vec<String> {
    Profile::ALL.iter().map(|p| p.name().to_string()).collect()
}
