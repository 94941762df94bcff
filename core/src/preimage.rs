//! The signature-preimage rules of SPEC §9.2.1, as streaming member filters.
//!
//! RFC 8785 fixes how a value is written, not which value: where a signature or digest
//! covers less than the whole record, Concordia states which members to leave out. Each
//! rule here is a [`Preimage`] that the canonical writer ([`crate::jcs::write_with`])
//! consults for every member, so a preimage is produced (or hashed, or verified) straight
//! from the parsed input without copying it.
//!
//! | rule | SPEC | drops |
//! |---|---|---|
//! | [`Whole`] | | nothing |
//! | [`WithoutSignature`] | §4.1, §9.2, §9.6.4a | the top-level `signature` member |
//! | [`Countersign`] | §9.6.5a | every `signature` member at any depth, and the top-level `countersignatures` |
//! | [`SignaturesRecursive`] | contract `StripSignaturesRecursive` | every `signature` member at any depth |
//! | [`Fields`] | §9.6.4d | every top-level member not in the list |

use crate::json::Str;

pub use crate::json::walk::{Preimage, Whole};

/// Rule 1: drops the top-level `signature` member; nested ones stay.
#[derive(Clone, Copy, Debug, Default)]
pub struct WithoutSignature;

impl Preimage for WithoutSignature {
    #[inline]
    fn keep(&self, depth: usize, key: Str<'_>) -> bool {
        !(depth == 1 && key.eq_str("signature"))
    }
}

/// Rule 2: drops every `signature` member at every depth and the top-level
/// `countersignatures` map (the attestation countersignature preimage).
#[derive(Clone, Copy, Debug, Default)]
pub struct Countersign;

impl Preimage for Countersign {
    #[inline]
    fn keep(&self, depth: usize, key: Str<'_>) -> bool {
        !(key.eq_str("signature") || (depth == 1 && key.eq_str("countersignatures")))
    }
}

/// Drops every `signature` member at every depth, and nothing else.
#[derive(Clone, Copy, Debug, Default)]
pub struct SignaturesRecursive;

impl Preimage for SignaturesRecursive {
    #[inline]
    fn keep(&self, _: usize, key: Str<'_>) -> bool {
        !key.eq_str("signature")
    }
}

/// Rule 3: keeps only the listed top-level members (an enumerated preimage); members of
/// nested objects are all kept.
#[derive(Clone, Copy, Debug)]
pub struct Fields<'a>(pub &'a [&'a str]);

impl Preimage for Fields<'_> {
    #[inline]
    fn keep(&self, depth: usize, key: Str<'_>) -> bool {
        depth != 1 || self.0.iter().any(|f| key.eq_str(f))
    }
}

/// Drops the listed top-level members, and keeps everything else.
#[derive(Clone, Copy, Debug)]
pub struct Without<'a>(pub &'a [&'a str]);

impl Preimage for Without<'_> {
    #[inline]
    fn keep(&self, depth: usize, key: Str<'_>) -> bool {
        depth != 1 || !self.0.iter().any(|f| key.eq_str(f))
    }
}
