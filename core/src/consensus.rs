//! Consensus venue primitives: locked-revision digests, invitations, credentials, room
//! commands, the unanimity room model, artifact verification and polling.
//!
//! Consensus (<https://consensus.md>) is a venue where 2 to 8 humans and invited agents
//! make explicit decisions on one locked agreement revision identified by its SHA-256
//! digest. This module lets an agent take part safely and lets a venue (or a test) apply
//! the same rules, without allocating:
//!
//! * [`digest`]: the revision digest of `canonicalRevision` (RFC 8785 canonical JSON, which
//!   is what a JavaScript venue's "sort keys recursively, no whitespace" produces), the
//!   Markdown digest over the exact UTF-8 bytes, and command digests given as raw hex or
//!   with a `sha256:` prefix;
//! * [`invitation`]: the `CONSENSUS INVITATION V1` block of a plain-text email, its
//!   origin/UUID/fragment checks, and the exchange request;
//! * [`credential`]: the four bearer values as distinct redacting types, and the
//!   `Authorization` header each one (and only that one) can build;
//! * [`command`]: `{action, body, revision, digest}` room commands and their stable
//!   `Idempotency-Key`;
//! * [`room`]: a fixed-capacity room state machine (201 / 200 / 404 / 409) and its outcome;
//! * [`artifact`]: `CONSENSUS.md` against `Content-Digest` (RFC 9530) and
//!   `X-Consensus-SHA256`;
//! * [`polling`]: bounded exponential backoff that honours `Retry-After`.
//!
//! Time is always passed in by the caller ([`crate::time::Timestamp`]).
//!
//! ```
//! # fn main() -> Result<(), concordia_core::Error> {
//! use concordia_core::consensus::{command::{Action, Command}, digest::markdown_digest};
//!
//! let d = markdown_digest(b"# Agreement\n").to_hex();
//! let cmd = Command::new(Action::Agree, "", 1, d.as_str())?;
//! let key = cmd.idempotency_key();
//! assert!(key.as_str().starts_with("cns1:"));
//! assert!(Command::new(Action::Agree, "looks good", 1, d.as_str()).is_err());
//! # Ok(())
//! # }
//! ```

pub mod artifact;
pub mod command;
pub mod credential;
pub mod digest;
pub mod invitation;
pub mod polling;
pub mod room;

use core::fmt;

/// The venue's canonical origin, the default for the invitation checks.
pub const DEFAULT_ORIGIN: &str = "https://consensus.md";

/// The outcome of a round.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// No terminal condition yet.
    Pending,
    /// Every required participant agreed to the same revision.
    Reached,
    /// A participant disagreed (the first `disagree` closes the round).
    Disagreed,
    /// A participant abstained (the first `abstain` closes the round).
    NoConsensus,
    /// The shared deadline passed while the round was pending.
    Expired,
}

impl Outcome {
    /// Every outcome, in the order of the wire words below.
    pub const ALL: [Outcome; 5] =
        [Outcome::Pending, Outcome::Reached, Outcome::Disagreed, Outcome::NoConsensus, Outcome::Expired];

    /// The wire word: `pending`, `reached`, `disagreed`, `no_consensus` or `expired`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Outcome::Pending => "pending",
            Outcome::Reached => "reached",
            Outcome::Disagreed => "disagreed",
            Outcome::NoConsensus => "no_consensus",
            Outcome::Expired => "expired",
        }
    }

    /// Parses the wire word.
    ///
    /// # Errors
    /// [`crate::Error::Schema`] for any other text.
    pub fn parse(s: &str) -> crate::Result<Outcome> {
        Outcome::ALL.into_iter().find(|o| o.as_str() == s).ok_or(crate::Error::Schema("outcome"))
    }

    /// True for every outcome but [`Outcome::Pending`]: the round is closed for good.
    #[must_use]
    pub const fn is_terminal(self) -> bool {
        !matches!(self, Outcome::Pending)
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests;
