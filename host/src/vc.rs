//! The one composition of "verify a credential" for every surface (CLI `aip vc verify`, C
//! `concordia_aip_vc_verify` and Go `VcVerify`, Python `aip.vc_verify`, UniFFI
//! `aipVcVerify`, the npm package's `aipVcVerify`): parse the credential under the one
//! parsing policy, read the time, and run [`vc::verify`] with one policy, so that every
//! surface has the same defaults and gives the same verdict and error.
//!
//! **Time.** [`VcTime::Clock`] (the default, the zero value of every surface's options)
//! checks the validity period and the proof's `created`/`expires` at the OS clock, read
//! here (the core has no clock); [`VcTime::At`] at a given instant; [`VcTime::Unchecked`]
//! skips them, and is only ever chosen by name (C `CONCORDIA_AIP_VC_TIME_UNCHECKED`, Go
//! `NoTimeCheck`, Python `check_time=False`, UniFFI `check_time: false`, JS `checkTime:
//! false`, CLI `--no-time-check`). A proof whose `expires` is before its `created` is
//! refused in every mode. On `wasm32-unknown-unknown`, which has no OS clock, the npm
//! package reads JavaScript's (`Date.now()`) and passes it as [`VcTime::At`].
//!
//! ```
//! use concordia_host::vc::{verify_credential, VcPolicy, VcTime};
//! use concordia_host::Nodes;
//!
//! let mut nodes = Nodes::new();
//! let policy = VcPolicy { time: VcTime::Unchecked, ..VcPolicy::default() };
//! assert!(verify_credential(br#"{"issuer": "did:key:z6Mk"}"#, &mut nodes, &policy).is_err());
//! ```

use std::time::{SystemTime, UNIX_EPOCH};

use concordia_core::aip::vc::{self, ProofVerified, Verified, VerifyOptions};
use concordia_core::time::Timestamp;
use concordia_core::{Error, Result};

use crate::Nodes;

/// When the validity period and the proof's `created`/`expires` are checked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum VcTime {
    /// At the OS clock, read when the call starts (the default on every surface).
    #[default]
    Clock,
    /// At this instant.
    At(Timestamp),
    /// Not checked (asked for by name only).
    Unchecked,
}

/// `InvalidArgument`: an instant to check at, together with the time check's opt-out.
pub const NOW_AND_UNCHECKED: &str = "an instant to check at (now) and no time check exclude each other";

impl VcTime {
    /// The one rule for a surface's time arguments: an instant `now` when given, else the
    /// clock; `check_time == false` (the opt-out by name) gives [`VcTime::Unchecked`], and
    /// refuses to go with an instant.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`]`(`[`NOW_AND_UNCHECKED`]`)` for both.
    pub fn from_args(now: Option<Timestamp>, check_time: bool) -> Result<VcTime> {
        match (now, check_time) {
            (Some(_), false) => Err(Error::InvalidArgument(NOW_AND_UNCHECKED)),
            (Some(t), true) => Ok(VcTime::At(t)),
            (None, true) => Ok(VcTime::Clock),
            (None, false) => Ok(VcTime::Unchecked),
        }
    }
}

/// A credential verification's arguments as a surface receives them (owned strings): the
/// same fields as [`VcPolicy`], for wrappers whose callers pass lists and texts by value.
#[derive(Clone, Debug, Default)]
pub struct VcArgs {
    /// As [`VcPolicy::anchors`].
    pub anchors: Option<Vec<String>>,
    /// As [`VcPolicy::revoked`].
    pub revoked: Vec<String>,
    /// As [`VcPolicy::domain`].
    pub domain: Option<String>,
    /// As [`VcPolicy::challenge`].
    pub challenge: Option<String>,
    /// As [`VcPolicy::time`].
    pub time: VcTime,
}

impl VcArgs {
    /// [`verify_credential`] under these arguments.
    ///
    /// # Errors
    /// As [`verify_credential`].
    pub fn verify<'a>(&self, credential: &'a [u8], nodes: &'a mut Nodes) -> Result<Verified<'a>> {
        let anchors: Option<Vec<&str>> = self.anchors.as_ref().map(|a| a.iter().map(String::as_str).collect());
        let revoked: Vec<&str> = self.revoked.iter().map(String::as_str).collect();
        let policy = VcPolicy {
            anchors: anchors.as_deref(),
            revoked: &revoked,
            domain: self.domain.as_deref(),
            challenge: self.challenge.as_deref(),
            time: self.time,
        };
        verify_credential(credential, nodes, &policy)
    }
}

/// What a credential verification checks besides the proof and the issuer binding.
#[derive(Clone, Copy, Debug, Default)]
pub struct VcPolicy<'a> {
    /// Accept only these issuer DIDs (`None`: any issuer whose proof verifies).
    pub anchors: Option<&'a [&'a str]>,
    /// Revoked credential `id`s (compared with the decoded `id`).
    pub revoked: &'a [&'a str],
    /// Require the proof's `domain` to be (or contain) this value.
    pub domain: Option<&'a str>,
    /// Require the proof's `challenge` to be this value.
    pub challenge: Option<&'a str>,
    /// When the time is checked.
    pub time: VcTime,
}

/// The OS clock as a [`Timestamp`].
///
/// # Errors
/// [`Error::InvalidArgument`] when the clock is before 1970 or beyond the timestamp range.
pub fn clock() -> Result<Timestamp> {
    const BAD: Error = Error::InvalidArgument("the system clock is out of range");
    let d = SystemTime::now().duration_since(UNIX_EPOCH).map_err(|_| BAD)?;
    Timestamp::from_unix_nanos(i64::try_from(d.as_secs()).map_err(|_| BAD)?, d.subsec_nanos()).map_err(|_| BAD)
}

impl VcPolicy<'_> {
    /// The core's options for this policy, the clock read now for [`VcTime::Clock`].
    ///
    /// # Errors
    /// As [`clock`].
    pub fn options(&self) -> Result<VerifyOptions<'_>> {
        let now = match self.time {
            VcTime::Clock => Some(clock()?),
            VcTime::At(t) => Some(t),
            VcTime::Unchecked => None,
        };
        Ok(VerifyOptions {
            now,
            anchors: self.anchors,
            revoked: self.revoked,
            domain: self.domain,
            challenge: self.challenge,
        })
    }
}

/// Verifies a credential given as JSON text: parsed under [`crate::options`] into
/// `nodes`, then [`vc::verify`] with `policy`. The issuer and subject borrow from
/// `credential` (they are written without escapes, or refused).
///
/// # Errors
/// The parser's errors, then as [`vc::verify`]; as [`clock`] for [`VcTime::Clock`].
pub fn verify_credential<'a>(
    credential: &'a [u8],
    nodes: &'a mut Nodes,
    policy: &VcPolicy<'_>,
) -> Result<Verified<'a>> {
    let opts = policy.options()?;
    let doc = nodes.parse(credential)?;
    vc::verify(doc.root(), &opts)
}

/// Verifies the credential's Data Integrity proof alone ([`vc::verify_proof`]: no issuer
/// binding, anchors, revocation, time or domain/challenge), parsed as
/// [`verify_credential`] parses.
///
/// # Errors
/// The parser's errors, then as [`vc::verify_proof`].
pub fn verify_credential_proof<'a>(credential: &'a [u8], nodes: &'a mut Nodes) -> Result<ProofVerified<'a>> {
    let doc = nodes.parse(credential)?;
    vc::verify_proof(doc.root())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use concordia_core::json::{self, Node};
    use concordia_core::sign::KeyPair;

    fn signed(valid_until: &str) -> Vec<u8> {
        let kp = KeyPair::from_seed(&[9; 32]);
        let did = concordia_core::did_key::encode(&kp.public_key());
        let text = format!(
            r#"{{"id":"urn:uuid:0f8f","issuer":"{did}","validUntil":"{valid_until}","credentialSubject":{{"id":"did:aip:a.org:b"}}}}"#
        );
        let mut nodes = vec![Node::EMPTY; 64];
        let doc = json::parse(text.as_bytes(), &mut nodes).unwrap();
        crate::write_vec(4096, |buf| vc::issue(doc.root(), &kp, Some("2020-01-01T00:00:00Z"), buf)).unwrap()
    }

    /// The one rule for a surface's time arguments: an instant, the clock, or the opt-out by
    /// name, never an instant with the opt-out.
    #[test]
    fn time_arguments() {
        let t = Timestamp::from_unix(1_800_000_000);
        assert_eq!(VcTime::from_args(None, true), Ok(VcTime::Clock));
        assert_eq!(VcTime::from_args(Some(t), true), Ok(VcTime::At(t)));
        assert_eq!(VcTime::from_args(None, false), Ok(VcTime::Unchecked));
        assert_eq!(VcTime::from_args(Some(t), false), Err(Error::InvalidArgument(NOW_AND_UNCHECKED)));
    }

    /// Owned arguments verify as the borrowed policy does (revocation by the decoded id).
    #[test]
    fn owned_arguments_are_the_policy() {
        let cred = signed("2099-01-01T00:00:00Z");
        let mut nodes = Nodes::new();
        let args = VcArgs { time: VcTime::Unchecked, ..VcArgs::default() };
        assert!(args.verify(&cred, &mut nodes).is_ok());
        let revoked = VcArgs { revoked: vec!["urn:uuid:0f8f".into()], time: VcTime::Unchecked, ..VcArgs::default() };
        let mut nodes = Nodes::new();
        assert_eq!(revoked.verify(&cred, &mut nodes).err(), Some(Error::Binding("credential is revoked")));
        let anchors =
            VcArgs { anchors: Some(vec!["did:key:z6Mkother".into()]), time: VcTime::Unchecked, ..VcArgs::default() };
        let mut nodes = Nodes::new();
        assert!(matches!(anchors.verify(&cred, &mut nodes), Err(Error::Binding(_))));
    }

    #[test]
    fn the_clock_is_checked_by_default_and_off_only_by_name() {
        let expired = signed("2021-01-01T00:00:00Z");
        let mut nodes = Nodes::new();
        assert_eq!(
            verify_credential(&expired, &mut nodes, &VcPolicy::default()).map(|_| ()),
            Err(Error::Temporal("credential has expired"))
        );
        let at = VcPolicy { time: VcTime::At(Timestamp::from_unix(1_590_000_000)), ..VcPolicy::default() };
        verify_credential(&expired, &mut nodes, &at).unwrap();
        let before = VcPolicy { time: VcTime::At(Timestamp::from_unix(1_500_000_000)), ..VcPolicy::default() };
        assert_eq!(
            verify_credential(&expired, &mut nodes, &before).map(|_| ()),
            Err(Error::Temporal("proof created in the future"))
        );
        let off = VcPolicy { time: VcTime::Unchecked, ..VcPolicy::default() };
        assert_eq!(verify_credential(&expired, &mut nodes, &off).unwrap().subject, Some("did:aip:a.org:b"));
        let current = signed("2999-01-01T00:00:00Z");
        verify_credential(&current, &mut nodes, &VcPolicy::default()).unwrap();
    }

    #[test]
    fn an_escaped_revoked_id_is_revoked() {
        let current = String::from_utf8(signed("2999-01-01T00:00:00Z")).unwrap();
        let escaped = current.replacen("urn:uuid:0f8f", "urn:uuid:\\u0030f8f", 1);
        assert_ne!(escaped, current);
        let revoked = ["urn:uuid:0f8f"];
        let mut nodes = Nodes::new();
        let policy = VcPolicy { revoked: &revoked, ..VcPolicy::default() };
        assert_eq!(
            verify_credential(escaped.as_bytes(), &mut nodes, &policy).map(|_| ()),
            Err(Error::Binding("credential is revoked"))
        );
        verify_credential(escaped.as_bytes(), &mut nodes, &VcPolicy::default()).unwrap();
    }
}
